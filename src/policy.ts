import { scopeCovers, type Actor, type KeyScope } from './domain/actor.js';
import type { OrgRole } from './db/schema.js';
import { forbidden, notFound } from './problem.js';

/**
 * Every access decision of the service, asked one way: `policy.require(actor, action, target)`.
 *
 * - Site administrators may do everything in an org; any signed-in user may create one.
 * - Members read the org, its repos, teams and members, and upload scan results.
 * - Owners also update and delete the org and add or remove its repos, teams and members.
 * - A key narrowed to some orgs acts in those only (even an administrator's), and creates none.
 * - Not visible answers 404 exactly like not existing, so ids cannot be probed; visible but not
 *   allowed answers 403.
 *
 * Which scope a key needs for a route is declared on the route and checked by auth/guard.ts before
 * anything else runs; a rule's `keyScope` asks for more on top where the route alone cannot tell.
 */

/** Who may, for actions on something inside an org (the target names the org). */
type OrgRule = { in: 'org'; least: 'member' | 'owner'; keyScope?: KeyScope };
/** Who may, for actions on the site as a whole (no org involved). */
type SiteRule = { in: 'site'; allow: (actor: Actor) => boolean; denied: string };

const members: OrgRule = { in: 'org', least: 'member' };
const owners: OrgRule = { in: 'org', least: 'owner' };
const signedIn: SiteRule = { in: 'site', allow: () => true, denied: '' };
// An administrator's key narrowed to some orgs is no administrator of the site: what these rules
// allow reaches every org.
const siteAdmins = (denied: string): SiteRule => ({
  in: 'site', allow: (actor) => actor.isAdmin && !actor.key?.orgIds, denied: `${denied} An API key limited to some organizations may not.`,
});

/** One line per action. A new resource adds its actions here and calls `require` from its service. */
const RULES = {
  'org.create': {
    in: 'site',
    allow: (actor: Actor) => !actor.key?.orgIds,
    denied: 'This API key is limited to some organizations, so it cannot create one.',
  },
  'org.read': members,
  'org.manage': owners,
  'member.read': members,
  'member.manage': owners,
  'repo.read': members,
  'repo.manage': owners,
  'team.read': members,
  'team.manage': owners,
  'scan.read': members,
  'scan.upload': members,
  'analysis.read': members,
  'analysis.delete': owners,
  'finding.read': members,
  // Any member may triage; a key needs write on top of the route's own scope.
  'finding.triage': { ...members, keyScope: 'write' },
  'vex.read': members,
  'suppression.read': members,
  'suppression.manage': owners,
  // Gates: members read policies and gates; owners set policies and rotate badge tokens. A badge
  // itself is shown to whoever holds the repository's badge token.
  'policy.read': members,
  'policy.manage': owners,
  'gate.read': members,
  // Metrics count only what the caller reads (see metrics/service.ts orgScope).
  'metrics.read': members,
  'badge.manage': owners,
  'audit.read': owners,
  // Hooks carry a secret and send the org's findings elsewhere: owners only, reading included.
  'webhook.read': owners,
  'webhook.manage': owners,
  'audit.read_site': siteAdmins('Only site administrators may read the site-wide audit log.'),
  'advisory.import': siteAdmins('Only site administrators may import advisories.'),
  'advisory.read': signedIn,
  'advisory.sources': siteAdmins('Only site administrators may see the advisory sources.'),
  'component.search': signedIn,
  'user.search': signedIn,
} satisfies Record<string, OrgRule | SiteRule>;

type Rules = typeof RULES;
export type OrgAction = { [A in keyof Rules]: Rules[A] extends OrgRule ? A : never }[keyof Rules];
export type SiteAction = Exclude<keyof Rules, OrgAction>;

/**
 * What an org action applies to. `what` names the thing in the 404 ("The repository"). When the
 * actor's role was read together with the target (one query on a hot path), pass it as `role`.
 */
export interface InOrg {
  orgId: string;
  what: string;
  role?: OrgRole | null;
}

export type OrgAccess = 'admin' | OrgRole;

/** The two questions the policy asks the database; the member store answers them. */
export interface PolicyLookups {
  /** Undefined when the org does not exist, else the user's role in it (null: not a member). */
  roleIn(orgId: string, userId: string): Promise<{ role: OrgRole | null } | undefined>;
  /** The ids of the orgs the user belongs to. */
  orgIdsOf(userId: string): Promise<string[]>;
}

const OWNERS_ONLY = 'Only owners of the organization (and site administrators) may do this.';

/**
 * A key narrowed to some orgs acts in those only, even for an administrator. Membership itself is
 * read from the database on every request, so removing a member takes effect at once.
 */
function keyAllowsOrg(actor: Actor, orgId: string): boolean {
  return actor.key?.orgIds == null || actor.key.orgIds.includes(orgId);
}

/** How the actor relates to an org, given their role in it (null: not visible to them). */
function accessOf(actor: Actor, orgId: string, role: OrgRole | null): OrgAccess | null {
  if (!keyAllowsOrg(actor, orgId)) return null;
  if (actor.isAdmin) return 'admin';
  return role;
}

/** Throws 404 when the org is not visible to the actor, 403 when visible but `rule` does not allow. */
function check(actor: Actor, rule: OrgRule, access: OrgAccess | null, what: string): OrgAccess {
  if (!access) throw notFound(what);
  if (rule.least === 'owner' && access === 'member') throw forbidden(OWNERS_ONLY);
  if (rule.keyScope && actor.key && !scopeCovers(actor.key.scope, rule.keyScope)) {
    throw forbidden(`This API key has the "${actor.key.scope}" scope; this request needs "${rule.keyScope}".`);
  }
  return access;
}

export function createPolicy(lookups: PolicyLookups) {
  async function roleIn(actor: Actor, target: InOrg): Promise<OrgAccess | null> {
    if (!keyAllowsOrg(actor, target.orgId)) return null;
    if (target.role !== undefined) return accessOf(actor, target.orgId, target.role);
    const found = await lookups.roleIn(target.orgId, actor.user.id);
    return found ? accessOf(actor, target.orgId, found.role) : null;
  }

  async function require(actor: Actor, action: SiteAction): Promise<void>;
  async function require(actor: Actor, action: OrgAction, target: InOrg): Promise<OrgAccess>;
  async function require(actor: Actor, action: keyof Rules, target?: InOrg): Promise<OrgAccess | void> {
    const rule: OrgRule | SiteRule = RULES[action];
    if (rule.in === 'site') {
      if (!rule.allow(actor)) throw forbidden(rule.denied);
      return;
    }
    if (!target) throw new Error(`${action} needs the org it applies to`);
    return check(actor, rule, await roleIn(actor, target), target.what);
  }

  return {
    require,

    /** The orgs GET /orgs lists: the caller's own (all for an administrator), within the key's. */
    orgListScope(actor: Actor): { memberOf: string | null; onlyIds: string[] | null } {
      return { memberOf: actor.isAdmin ? null : actor.user.id, onlyIds: actor.key?.orgIds ?? null };
    },

    /** Of the actor's orgs, those a narrowed key lets it see (GET /me). */
    visibleOrgs<T extends { id: string }>(actor: Actor, orgs: T[]): T[] {
      return orgs.filter((org) => keyAllowsOrg(actor, org.id));
    },

    /**
     * Which of `orgIds` the actor may not narrow a new key to: a key may only be narrowed to orgs
     * its user belongs to (any org that exists, for an administrator).
     */
    async orgsBeyondReach(actor: Actor, orgIds: string[]): Promise<Set<string>> {
      if (actor.isAdmin) {
        const unique = [...new Set(orgIds)];
        const found = await Promise.all(unique.map((id) => lookups.roleIn(id, actor.user.id)));
        return new Set(unique.filter((_, i) => found[i] === undefined));
      }
      const mine = new Set(await lookups.orgIdsOf(actor.user.id));
      return new Set(orgIds.filter((id) => !mine.has(id)));
    },
  };
}
export type Policy = ReturnType<typeof createPolicy>;
