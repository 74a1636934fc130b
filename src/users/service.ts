import type { Actor } from '../domain/actor.js';
import type { UserRow } from '../db/schema.js';
import type { Policy } from '../policy.js';
import type { UserStore } from './store.js';

export interface CurrentUser {
  user: UserRow;
  isAdmin: boolean;
  /** The type of the forge the user signs in with, when it is still configured. */
  providerType: string | undefined;
  orgs: { id: string; name: string; role: string }[];
}
export type UserSummary = Pick<UserRow, 'id' | 'login' | 'name' | 'avatar_url'>;

/** Looks up a forge's type by its provider id (from the configured sign-in providers). */
export type ProviderTypeOf = (providerId: string | null) => string | undefined;

export function userService(users: UserStore, policy: Policy, providerTypeOf: ProviderTypeOf) {
  return {
    /** The user and their orgs; a key narrowed to some orgs shows only those. */
    async current(actor: Actor): Promise<CurrentUser> {
      const orgs = policy.visibleOrgs(actor, await users.orgRoles(actor.user.id));
      return { user: actor.user, isAdmin: actor.isAdmin, providerType: providerTypeOf(actor.user.provider_id), orgs };
    },

    /** For picking people to add to an organization: only users who have signed in exist here. */
    async search(actor: Actor, loginPrefix: string, limit: number): Promise<UserSummary[]> {
      await policy.require(actor, 'user.search');
      return users.searchByLogin(loginPrefix, limit);
    },
  };
}
