import { sql, type Kysely } from 'kysely';
import type { BaseRole, Database, OrgRole, RepoRole, RepoRow, RepoStatusRow } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { containsIgnoringCase } from '../db/like.js';
import { dialectOf } from '../db/index.js';
import { compiledOnce } from '../db/compiled.js';
import { readableBy, teamRoleOn } from '../policy-store.js';

/** A repository with its scan summary (null columns when it was never scanned). */
export type RepoWithScan = RepoRow & { [K in keyof Omit<RepoStatusRow, 'repository_id'>]: RepoStatusRow[K] | null };
/** What the policy needs to decide on a repository for a user, read with it (see policy.ts, repoRoleOf). */
export interface RepoRoles {
  /** The user's role in its org (null: not a member). */
  member_role: OrgRole | null;
  /** The org's base role. */
  base_role: BaseRole;
  /** The best role the user's teams hold on it (null: none). */
  team_role: RepoRole | null;
}
/** The same, read for a user, with their roles. */
export type RepoWithRole = RepoWithScan & RepoRoles;

/** The repo_status columns every read of a repository brings along (left-joined: null when never scanned). */
export const SCAN_COLUMNS = [
  'repo_status.state', 'repo_status.last_upload_at', 'repo_status.last_completed_at', 'repo_status.open_critical',
  'repo_status.open_high', 'repo_status.open_medium', 'repo_status.open_low', 'repo_status.open_info', 'repo_status.components',
  'repo_status.vulnerabilities',
] as const;

/** Every column of repos, named: the hot reads are prepared statements (db/compiled.ts). */
const REPO_COLUMNS = [
  'repos.id', 'repos.org_id', 'repos.name', 'repos.name_key', 'repos.url', 'repos.default_branch', 'repos.forge_id', 'repos.full_name',
  'repos.visibility', 'repos.archived', 'repos.gone', 'repos.created_at', 'repos.updated_at',
] as const;

export function repoStore(db: Kysely<Database>) {
  const dialect = dialectOf(db);
  const joined = () => db.selectFrom('repos').leftJoin('repo_status', 'repo_status.repository_id', 'repos.id');
  const withScan = () => joined().select(REPO_COLUMNS).select(SCAN_COLUMNS);
  // Parameters: the user id (in the team role's subquery), the user id again (in the membership
  // join), then the repository id.
  const repoForUser = compiledOnce(db, withScan()
    .innerJoin('orgs', 'orgs.id', 'repos.org_id')
    .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'repos.org_id').on('memberships.user_id', '=', ''))
    .select(['memberships.role as member_role', 'orgs.base_role'])
    .select((eb) => teamRoleOn(eb, ''))
    .where('repos.id', '=', ''));
  return {
    async insert(repo: RepoRow): Promise<void> {
      await db.insertInto('repos').values(repo).execute();
    },

    /** The repository, its scan summary and the user's role in its org, in one query (the hot read path). */
    async byIdFor(id: string, userId: string): Promise<RepoWithRole | undefined> {
      const [row] = await repoForUser(userId, userId, id);
      return row;
    },

    /** The repository and its scan summary, whoever asks (badges check their token instead). */
    byId(id: string): Promise<RepoWithScan | undefined> {
      return withScan().where('repos.id', '=', id).executeTakeFirst();
    },

    /** The same, found by its org's and its own name keys. */
    byNamesFor(orgNameKey: string, repoNameKey: string, userId: string): Promise<RepoWithRole | undefined> {
      return withScan()
        .innerJoin('orgs', 'orgs.id', 'repos.org_id')
        .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'repos.org_id').on('memberships.user_id', '=', userId))
        .select(['memberships.role as member_role', 'orgs.base_role'])
        .select((eb) => teamRoleOn(eb, userId))
        .where('orgs.name_key', '=', orgNameKey).where('repos.name_key', '=', repoNameKey)
        .executeTakeFirst();
    },

    /**
     * `readerId`: only the repositories that user may read (null: all, for a site administrator).
     * `critical`: most open critical findings first (then high), by name among equals; else oldest first.
     */
    page(orgId: string, readerId: string | null, q: string, page: Page, sort: RepoSort = 'created'): Promise<Paged<RepoWithScan>> {
      // Counted without repo_status: the left join adds no rows, but SQLite still looked up every
      // repository's status to count an org of 10,000 (7 ms of each page's 8).
      let filtered = db.selectFrom('repos').where('repos.org_id', '=', orgId);
      if (readerId !== null) filtered = filtered.where(readableBy(readerId));
      if (q) filtered = filtered.where(containsIgnoringCase(dialect, 'repos.name_key', q));
      return paginate(filtered, page, (query) => {
        const rows = query.leftJoin('repo_status', 'repo_status.repository_id', 'repos.id').selectAll('repos').select(SCAN_COLUMNS);
        return sort === 'critical'
          ? rows.orderBy(sql`coalesce(repo_status.open_critical, 0)`, 'desc').orderBy(sql`coalesce(repo_status.open_high, 0)`, 'desc')
            .orderBy('repos.name_key').orderBy('repos.id')
          : rows.orderBy('repos.created_at').orderBy('repos.id');
      });
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('repos').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type RepoStore = ReturnType<typeof repoStore>;
export type RepoSort = 'created' | 'critical';
