import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, call } from './api/client';
import type { CurrentUser } from './api/types';

interface Session {
  user: CurrentUser | undefined;
  error: unknown;
  /** Reads /api/v1/me again, e.g. after joining or creating an organization. */
  refresh: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** The signed-in user; a 401 on the way sends the browser to the login screen (client.ts). */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<CurrentUser>();
  const [error, setError] = useState<unknown>();
  const refresh = useCallback(async () => {
    try {
      const { data } = await call(api.GET('/api/v1/me'));
      setUser(data);
      setError(undefined);
    } catch (caught) {
      setError(caught);
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return <SessionContext.Provider value={{ user, error, refresh }}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The signed-in user, for screens that render only once there is one. */
export function useUser(): CurrentUser {
  const { user } = useSession();
  if (!user) throw new Error('useUser before the session loaded');
  return user;
}
