import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { RepoRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import { badRequest, notFound } from '../problem.js';
import { conflictOnDuplicate } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { OrgAction, Policy } from '../policy.js';
import { nameKey } from '../orgs/names.js';
import type { RepoRoles, RepoSort, RepoStore, RepoWithScan } from './store.js';
import { requestedRef } from '../domain/ref-name.js';

export interface NewRepo {
  name: string;
  url?: string | null;
  defaultBranch?: string | null;
}

/** The repository when the actor may do `action` to it; 404 naming `what` when not visible, 403 when not allowed. */
export type AuthorizedRepo = (actor: Actor, repoId: string, action: OrgAction, what?: string) => Promise<RepoWithScan>;
/** The same decision on a repository read with the actor's role by another query (undefined: none such). */
export type AdmitRepo = <R extends RepoRoles & { org_id: string }>(actor: Actor, repo: R | undefined, action: OrgAction, what?: string) => Promise<R>;

const REPO = 'The repository';
const ORG = 'The organization';

/** The policy's target for an action on a repository read with the actor's roles. */
const inRepo = (repo: RepoRoles & { org_id: string; id?: string }, what: string) => ({
  orgId: repo.org_id, role: repo.member_role, what, repo: { baseRole: repo.base_role, teamRole: repo.team_role }, repoId: repo.id,
});

export function repoService(repos: RepoStore, policy: Policy, audit: AuditStore) {
  /**
   * The repository, when the actor may do `action` to it; 404 (naming `what`) when it does not
   * exist or is not theirs to see, 403 when it is visible but the action is not allowed. The role
   * is read with the repository, in one query: this is the hot read path.
   */
  async function authorized(actor: Actor, repoId: string, action: OrgAction, what = REPO): Promise<RepoWithScan> {
    return admitted(actor, await repos.byIdFor(repoId, actor.user.id), action, what);
  }

  /** The same decision on a repository another query read with the actor's role (undefined: no such repository). */
  async function admitted<R extends RepoRoles & { org_id: string }>(actor: Actor, repo: R | undefined, action: OrgAction, what = REPO): Promise<R> {
    if (!repo) throw notFound(what);
    await policy.require(actor, action, inRepo(repo, what));
    return repo;
  }

  return {
    authorized,
    admitted,

    /** What GET /repos/{id} answers, and what reading a repository's scan results needs. */
    visibleRepo: (actor: Actor, repoId: string) => authorized(actor, repoId, 'repo.read'),

    /** A repository named as CI configuration names it (`acme/payments-api`); 404 when not visible. */
    async lookup(actor: Actor, orgName: string, repoName: string): Promise<RepoWithScan> {
      const repo = await repos.byNamesFor(nameKey(orgName), nameKey(repoName), actor.user.id);
      if (!repo) throw notFound(REPO);
      await policy.require(actor, 'repo.read', inRepo(repo, REPO));
      return repo;
    },

    /** The org's repositories the actor may read (policy.repoReader: all, or filtered by their roles), oldest first or by open criticals. */
    async list(actor: Actor, orgId: string, q: string, page: Page, sort: RepoSort = 'created') {
      await policy.require(actor, 'org.read', { orgId, what: ORG });
      return repos.page(orgId, policy.repoReader(actor), q, page, sort);
    },

    async create(actor: Actor, orgId: string, input: NewRepo, ip: string): Promise<RepoRow> {
      await policy.require(actor, 'repo.manage', { orgId, what: ORG });
      // Read back as a branch wherever the default branch is needed: one that is none would silently be main.
      if (input.defaultBranch && requestedRef(input.defaultBranch, 'default_branch').kind !== 'branch') {
        throw badRequest(`"${input.defaultBranch}" is not a branch.`, [{ path: '/default_branch', message: 'must name a branch (x or refs/heads/x)' }]);
      }
      const at = now();
      const repo: RepoRow = {
        id: newId(), org_id: orgId, name: input.name, name_key: nameKey(input.name),
        url: input.url ?? null, default_branch: input.defaultBranch ?? null,
        forge_id: null, full_name: null, visibility: null, archived: 0, gone: 0, created_at: at, updated_at: at,
      };
      await conflictOnDuplicate(() => repos.insert(repo),
        `This organization already has a repository named "${input.name}" (names are compared ignoring case).`, ORG);
      await audit.record({ action: 'repo.created', actor: actor.user, orgId, ip, target: { type: 'repo', id: repo.id }, details: { name: repo.name } });
      return repo;
    },

    async delete(actor: Actor, repoId: string, ip: string): Promise<void> {
      const repo = await authorized(actor, repoId, 'repo.manage');
      // Foreign keys cascade: its uploads, analyses, findings and status go with it.
      if (!(await repos.delete(repoId))) throw notFound(REPO);
      await audit.record({ action: 'repo.deleted', actor: actor.user, orgId: repo.org_id, ip, target: { type: 'repo', id: repoId }, details: { name: repo.name } });
    },
  };
}
