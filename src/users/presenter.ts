import type { CurrentUser, UserSummary } from './service.js';
import type { CurrentUserJson, UserSummaryJson } from './schema.js';

export function presentCurrentUser({ user, isAdmin, providerType, orgs }: CurrentUser): CurrentUserJson {
  return {
    id: user.id,
    login: user.login,
    name: user.name,
    email: user.email,
    avatar_url: user.avatar_url,
    is_admin: isAdmin,
    provider: user.provider_id ? { id: user.provider_id, type: providerType ?? 'unknown' } : null,
    orgs,
  };
}

export function presentUserSummary(user: UserSummary): UserSummaryJson {
  return { id: user.id, login: user.login, name: user.name, avatar_url: user.avatar_url };
}

