import type { Actor } from '../auth/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { RepoRow } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import { notFound } from '../http/problem.js';
import { conflictOnDuplicate } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import { accessOf, authorizeAccess, type OrgPolicy } from '../orgs/policy.js';
import { nameKey } from '../orgs/names.js';
import type { RepoStore, RepoWithScan } from './store.js';
import type { CreateRepoBody } from './presenter.js';

const REPO = 'The repository';

export function repoService(repos: RepoStore, policy: OrgPolicy, audit: AuditStore) {
  /**
   * The repository, when the actor may see it (any member of its org, or an administrator, within
   * the key's orgs); 404 otherwise, exactly as when it does not exist. Seeing a repo is also what
   * uploading to it needs; the key's scope is checked by the route.
   */
  async function visibleRepo(actor: Actor, repoId: string): Promise<RepoWithScan> {
    const repo = await repos.byIdFor(repoId, actor.user.id);
    if (!repo) throw notFound(REPO);
    authorizeAccess(accessOf(actor, repo.org_id, repo.member_role), 'read', REPO);
    return repo;
  }

  return {
    visibleRepo,

    async list(actor: Actor, orgId: string, q: string, page: Page) {
      await policy.authorize(actor, orgId, 'read', 'The organization');
      return repos.page(orgId, q, page);
    },

    async create(actor: Actor, orgId: string, body: CreateRepoBody, ip: string): Promise<RepoRow> {
      await policy.authorize(actor, orgId, 'manage', 'The organization');
      const at = now();
      const repo: RepoRow = {
        id: newId(), org_id: orgId, name: body.name, name_key: nameKey(body.name),
        url: body.url ?? null, default_branch: body.default_branch ?? null, created_at: at, updated_at: at,
      };
      await conflictOnDuplicate(() => repos.insert(repo),
        `This organization already has a repository named "${body.name}" (names are compared ignoring case).`, 'The organization');
      await audit.record({ action: 'repo.created', actor: actor.user, orgId, ip, target: { type: 'repo', id: repo.id }, details: { name: repo.name } });
      return repo;
    },

    async delete(actor: Actor, repoId: string, ip: string): Promise<void> {
      const repo = await repos.byId(repoId);
      if (!repo) throw notFound(REPO);
      await policy.authorize(actor, repo.org_id, 'manage', REPO);
      // Foreign keys cascade: its uploads, analyses, findings and status go with it.
      if (!(await repos.delete(repoId))) throw notFound(REPO);
      await audit.record({ action: 'repo.deleted', actor: actor.user, orgId: repo.org_id, ip, target: { type: 'repo', id: repoId }, details: { name: repo.name } });
    },
  };
}
export type RepoService = ReturnType<typeof repoService>;
export type VisibleRepo = RepoService['visibleRepo'];
