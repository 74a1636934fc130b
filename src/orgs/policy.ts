import { keyAllowsOrg, type Actor } from '../auth/actor.js';
import { forbidden, notFound } from '../http/problem.js';
import type { MemberStore, OrgRole } from './members-store.js';
import type { OrgListScope } from './store.js';

/**
 * Every authorization rule for an org and what hangs off it (repos, teams, members, uploads).
 *
 * - Site administrators may do everything; any signed-in user may create an org.
 * - Members read the org, its repos, teams and members, and upload scan results.
 * - Owners also update and delete the org and add or remove its repos, teams and members.
 * - A key narrowed to some orgs acts in those only (even an administrator's), and creates none.
 * - Not visible answers 404 exactly like not existing, so ids cannot be probed; visible but not
 *   allowed answers 403.
 */
export type OrgAccess = 'admin' | 'owner' | 'member';
export type OrgAction = 'read' | 'manage';

export function allows(access: OrgAccess, action: OrgAction): boolean {
  return action === 'read' || access !== 'member';
}

/** How the actor relates to an existing org, given their role in it (null: not a member). */
export function accessOf(actor: Actor, orgId: string, role: OrgRole | null): OrgAccess | null {
  if (!keyAllowsOrg(actor, orgId)) return null;
  if (actor.isAdmin) return 'admin';
  return role;
}

/** Throws 404 (named as `what`) when the org is not visible, 403 when `action` is not allowed. */
export function authorizeAccess(access: OrgAccess | null, action: OrgAction, what: string): OrgAccess {
  if (access === null) throw notFound(what);
  if (!allows(access, action)) {
    throw forbidden('Only owners of the organization (and site administrators) may do this.');
  }
  return access;
}

export function orgPolicy(members: MemberStore) {
  /** How the actor relates to the org; null when it does not exist or is not theirs to see. */
  async function orgAccess(actor: Actor, orgId: string): Promise<OrgAccess | null> {
    if (!keyAllowsOrg(actor, orgId)) return null;
    const found = await members.access(orgId, actor.user.id);
    return found ? accessOf(actor, orgId, found.role) : null;
  }

  return {
    orgAccess,

    /** Throws 404 (named as `what`) when the org is not visible, 403 when `action` is not allowed. */
    async authorize(actor: Actor, orgId: string, action: OrgAction, what: string): Promise<OrgAccess> {
      return authorizeAccess(await orgAccess(actor, orgId), action, what);
    },

    authorizeCreateOrg(actor: Actor): void {
      if (actor.key?.orgIds) {
        throw forbidden('This API key is limited to some organizations, so it cannot create one.');
      }
    },

    /** The orgs GET /orgs lists: the caller's own (all for an administrator), within the key's. */
    listScope(actor: Actor): OrgListScope {
      return { memberOf: actor.isAdmin ? null : actor.user.id, onlyIds: actor.key?.orgIds ?? null };
    },
  };
}
export type OrgPolicy = ReturnType<typeof orgPolicy>;
