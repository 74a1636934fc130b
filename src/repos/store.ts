import type { Kysely } from 'kysely';
import type { Database, RepoRow, RepoStatusRow } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import { containsIgnoringCase } from '../db/like.js';
import type { OrgRole } from '../orgs/members-store.js';

/** A repository with its scan summary (null columns when it was never scanned). */
export type RepoWithScan = RepoRow & { [K in keyof Omit<RepoStatusRow, 'repository_id'>]: RepoStatusRow[K] | null };

const SCAN_COLUMNS = [
  'repo_status.state', 'repo_status.last_upload_at', 'repo_status.last_completed_at', 'repo_status.open_critical',
  'repo_status.open_high', 'repo_status.open_medium', 'repo_status.open_low', 'repo_status.open_info', 'repo_status.components',
] as const;

export function repoStore(db: Kysely<Database>) {
  const withScan = () => db.selectFrom('repos').leftJoin('repo_status', 'repo_status.repository_id', 'repos.id')
    .selectAll('repos').select(SCAN_COLUMNS);
  return {
    async insert(repo: RepoRow): Promise<void> {
      await db.insertInto('repos').values(repo).execute();
    },

    byId(id: string): Promise<RepoWithScan | undefined> {
      return withScan().where('repos.id', '=', id).executeTakeFirst();
    },

    /** The repository, its scan summary and the user's role in its org, in one query (the hot read path). */
    byIdFor(id: string, userId: string): Promise<(RepoWithScan & { member_role: OrgRole | null }) | undefined> {
      return withScan()
        .leftJoin('memberships', (join) => join.onRef('memberships.org_id', '=', 'repos.org_id').on('memberships.user_id', '=', userId))
        .select('memberships.role as member_role')
        .where('repos.id', '=', id)
        .executeTakeFirst() as Promise<(RepoWithScan & { member_role: OrgRole | null }) | undefined>;
    },

    async page(orgId: string, q: string, page: Page): Promise<{ total: number; items: RepoWithScan[] }> {
      let count = db.selectFrom('repos').where('org_id', '=', orgId);
      let items = withScan().where('repos.org_id', '=', orgId);
      if (q) {
        count = count.where(containsIgnoringCase('repos.name_key', q));
        items = items.where(containsIgnoringCase('repos.name_key', q));
      }
      const [counted, rows] = await Promise.all([
        count.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        items.orderBy('repos.created_at').orderBy('repos.id').limit(page.perPage).offset(page.offset).execute(),
      ]);
      return { total: Number(counted.n), items: rows };
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('repos').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type RepoStore = ReturnType<typeof repoStore>;
