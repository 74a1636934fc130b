import { scopeCovers, type Actor, type KeyScope } from './domain/actor.js';
import type { BaseRole, OrgRole, RepoRole } from './db/schema.js';
import { forbidden, notFound } from './problem.js';

/**
 * Every access decision of the service, asked one way: `policy.require(actor, action, target)`.
 *
 * - Site administrators may do everything in an org; any signed-in user may create one.
 * - Members read the org, its teams and members. What they may do to a repository is their role on
 *   it: the best of the org's base role (base_role "read": "triage" on every repository, the rights
 *   members always had; "none": nothing) and the roles their teams hold on it. read: see it, its
 *   results and components, upload; triage: also dismiss and reopen findings; admin: also its
 *   policy, badge token and deleting analyses. A repository the member holds no role on is 404.
 * - Owners (and site administrators) hold admin on every repository; they also update and delete
 *   the org and add or remove its repos, teams and members.
 * - A key narrowed to some orgs acts in those only (even an administrator's), and creates none.
 * - Not visible answers 404 exactly like not existing, so ids cannot be probed; visible but not
 *   allowed answers 403.
 *
 * Which scope a key needs for a route is declared on the route and checked by auth/guard.ts before
 * anything else runs; a rule's `keyScope` asks for more on top where the route alone cannot tell.
 */

/** Who may, for actions on something inside an org (the target names the org). */
type OrgRule = { in: 'org'; least: 'member' | 'owner'; keyScope?: KeyScope };
/** Who may, for actions on one repository (the target carries the actor's roles on it): the least role needed. */
type RepoRule = { in: 'repo'; least: RepoRole; keyScope?: KeyScope };
/** Who may, for actions on the site as a whole (no org involved). */
type SiteRule = { in: 'site'; allow: (actor: Actor) => boolean; denied: string };

const members: OrgRule = { in: 'org', least: 'member' };
const owners: OrgRule = { in: 'org', least: 'owner' };
const repoReaders: RepoRule = { in: 'repo', least: 'read' };
const repoAdmins: RepoRule = { in: 'repo', least: 'admin' };
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
  'repo.read': repoReaders,
  // Deleting a repository is the org's business: owners only (a team's admin may not).
  'repo.manage': owners,
  'team.read': members,
  'team.manage': owners,
  'scan.read': repoReaders,
  'scan.upload': repoReaders,
  'analysis.read': repoReaders,
  'analysis.delete': repoAdmins,
  'finding.read': repoReaders,
  // Triage needs the triage role; a key needs write on top of the route's own scope.
  'finding.triage': { in: 'repo', least: 'triage', keyScope: 'write' },
  'vex.read': repoReaders,
  'suppression.read': members,
  'suppression.manage': owners,
  // Gates: readers read policies and gates; a repository's admins set its policy and rotate its badge
  // token. A badge itself is shown to whoever holds the repository's badge token.
  'policy.read': repoReaders,
  'policy.manage': repoAdmins,
  'gate.read': repoReaders,
  // The org's own policy, which repositories inherit.
  'org_policy.read': members,
  'org_policy.manage': owners,
  'badge.manage': repoAdmins,
  // A repository's own settings (its pull request feedback): its admins.
  'repo.configure': repoAdmins,
  // Metrics count only what the caller reads (see metrics/service.ts orgScope).
  'metrics.read': members,
  'repo_metrics.read': repoReaders,
  'audit.read': owners,
  // Hooks carry a secret and send the org's findings elsewhere: owners only, reading included.
  'webhook.read': owners,
  'webhook.manage': owners,
  // The forge link: members see its status; owners link, unlink and ask for a pass (linking also needs the forge's word).
  'forge.read': members,
  'forge.manage': owners,
  'audit.read_site': siteAdmins('Only site administrators may read the site-wide audit log.'),
  'advisory.import': siteAdmins('Only site administrators may import advisories.'),
  'advisory.read': signedIn,
  'advisory.sources': siteAdmins('Only site administrators may see the advisory sources.'),
  'component.search': signedIn,
  'user.search': signedIn,
  // Which CI pipelines may upload without a key: members read the rules, owners manage them.
  'ci_trust.read': members,
  'ci_trust.manage': owners,
} satisfies Record<string, OrgRule | RepoRule | SiteRule>;

type Rules = typeof RULES;
/** Actions on one repository: their target carries the actor's roles on it (InOrg.repo). */
export type RepoAction = { [A in keyof Rules]: Rules[A] extends RepoRule ? A : never }[keyof Rules];
export type OrgAction = { [A in keyof Rules]: Rules[A] extends OrgRule ? A : never }[keyof Rules] | RepoAction;
export type SiteAction = Exclude<keyof Rules, OrgAction>;

/**
 * What an org action applies to. `what` names the thing in the 404 ("The repository"). When the
 * actor's role was read together with the target (one query on a hot path), pass it as `role`.
 */
export interface InOrg {
  orgId: string;
  what: string;
  role?: OrgRole | null;
  /**
   * For an action on one repository: the org's base role and the best role the actor's teams hold
   * on it (null: none), read with the repository. Any action on a repository needs it, so that a
   * repository the actor holds no role on is 404 whatever is asked.
   */
  repo?: RepoGrants;
  /** The repository acted on, when the action is on one (a CI token may act on its own repositories only). */
  repoId?: string;
}

export interface RepoGrants {
  baseRole: BaseRole;
  teamRole: RepoRole | null;
}

/** What a short-lived CI token may do, on the repositories its trust rules granted: upload, and read those uploads and the gate. */
const CI_ACTIONS = new Set<string>(['scan.upload', 'scan.read', 'gate.read', 'repo.read']);
const CI_DENIED = 'A CI token may only upload scan results to its repositories and read their uploads and gate.';

/** A CI token sees only its repositories (404 for anything else); on those, only CI_ACTIONS (403). */
function ciCheck(actor: Actor, action: string, target: InOrg | undefined): OrgAccess {
  const ci = actor.ci!;
  if (!target) throw forbidden(CI_DENIED);
  if (!keyAllowsOrg(actor, target.orgId)) throw notFound(target.what);
  if (target.repoId === undefined) throw forbidden(CI_DENIED);
  if (!ci.repositoryIds.includes(target.repoId)) throw notFound(target.what);
  if (!CI_ACTIONS.has(action)) throw forbidden(CI_DENIED);
  return 'member';
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
const REPO_RANK: Record<RepoRole, number> = { read: 1, triage: 2, admin: 3 };
const needsRole = (role: RepoRole) => `This needs the "${role}" role on the repository (a team of yours may hold it; owners hold every role).`;

/**
 * The actor's role on a repository of an org they see with `access`: admin for owners and site
 * administrators, else the best of the base role's grant and their teams'. Null: none (not visible).
 */
export function repoRoleOf(access: OrgAccess | null, grants: RepoGrants): RepoRole | null {
  if (!access) return null;
  if (access !== 'member') return 'admin';
  // base_role "read" keeps what members always could: read, upload and triage every repository.
  const base: RepoRole | null = grants.baseRole === 'read' ? 'triage' : null;
  const team = grants.teamRole;
  if (base === null) return team;
  if (team === null) return base;
  return REPO_RANK[team] > REPO_RANK[base] ? team : base;
}

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

/**
 * Throws 404 when the org (or, with `repo`, the repository) is not visible to the actor, 403 when
 * visible but `rule` does not allow.
 */
function check(actor: Actor, rule: OrgRule | RepoRule, access: OrgAccess | null, target: InOrg, action: string): OrgAccess {
  const what = target.what;
  if (!access) throw notFound(what);
  if (rule.in === 'repo' && !target.repo) throw new Error(`${action} needs the actor's roles on the repository`);
  if (target.repo) {
    const role = repoRoleOf(access, target.repo);
    if (!role) throw notFound(what);
    if (rule.in === 'repo' && REPO_RANK[role] < REPO_RANK[rule.least]) throw forbidden(needsRole(rule.least));
  }
  if (rule.in === 'org' && rule.least === 'owner' && access === 'member') throw forbidden(OWNERS_ONLY);
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
    if (actor.ci) return ciCheck(actor, action, target);
    const rule: OrgRule | RepoRule | SiteRule = RULES[action];
    if (rule.in === 'site') {
      if (!rule.allow(actor)) throw forbidden(rule.denied);
      return;
    }
    if (!target) throw new Error(`${action} needs the org it applies to`);
    return check(actor, rule, await roleIn(actor, target), target, action);
  }

  return {
    require,

    /** The orgs GET /orgs lists: the caller's own (all for an administrator), within the key's. */
    orgListScope(actor: Actor): { memberOf: string | null; onlyIds: string[] | null } {
      return { memberOf: actor.isAdmin ? null : actor.user.id, onlyIds: actor.key?.orgIds ?? null };
    },

    /**
     * Whose roles filter a list, count or search across repositories (repos/store.ts, readableBy):
     * the actor's own, or null for a site administrator, who reads every repository (a narrowed
     * key's orgs are filtered by the list's own org scope).
     */
    repoReader(actor: Actor): string | null {
      return actor.isAdmin ? null : actor.user.id;
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
