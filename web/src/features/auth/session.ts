import type { CurrentUser } from '../../api/types';
import { useMe } from './api';

/** The signed-in user, for screens inside the signed-in layout (which waits for it). */
export function useUser(): CurrentUser {
  const { data } = useMe();
  if (!data) throw new Error('useUser before the session loaded');
  return data;
}
