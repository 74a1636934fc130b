import type { UserRow } from '../db/schema.js';

export type KeyScope = 'read' | 'upload' | 'write';
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'upload', 'write'];

/** Who is asking: a user, through a browser session or one of their API keys. */
export interface Actor {
  user: UserRow;
  isAdmin: boolean;
  via: 'session' | 'api_key';
  sessionId: string | null;
  key: { id: string; scope: KeyScope; orgIds: string[] | null } | null;
}

/**
 * A key narrowed to some orgs acts in those only, even for an administrator. Membership itself is
 * checked by each resource's policy against the database, so removing a member takes effect at once.
 */
export function keyAllowsOrg(actor: Actor, orgId: string): boolean {
  return actor.key?.orgIds == null || actor.key.orgIds.includes(orgId);
}

export function isSiteAdmin(user: UserRow, admins: readonly string[]): boolean {
  if (user.is_admin) return true;
  return admins.includes(user.login) || (user.provider_id !== null && admins.includes(`${user.provider_id}:${user.login}`));
}
