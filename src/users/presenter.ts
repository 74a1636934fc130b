import { Type, type Static } from 'typebox';
import type { UserRow } from '../db/schema.js';
import type { ProviderConfig } from '../auth/providers-config.js';

export const CurrentUserSchema = Type.Object({
  id: Type.String(),
  login: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()]),
  is_admin: Type.Boolean(),
  provider: Type.Union([Type.Object({ id: Type.String(), type: Type.String() }), Type.Null()]),
  orgs: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() })),
}, { title: 'CurrentUser' });
export type CurrentUser = Static<typeof CurrentUserSchema>;

export function presentCurrentUser(
  user: UserRow,
  isAdmin: boolean,
  providers: readonly ProviderConfig[],
  orgs: { id: string; name: string; role: string }[],
): CurrentUser {
  const provider = providers.find((p) => p.id === user.provider_id);
  return {
    id: user.id,
    login: user.login,
    name: user.name,
    email: user.email,
    avatar_url: user.avatar_url,
    is_admin: isAdmin,
    provider: user.provider_id ? { id: user.provider_id, type: provider?.type ?? 'unknown' } : null,
    orgs,
  };
}
