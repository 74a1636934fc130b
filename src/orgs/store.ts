import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database, OrgRow } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { containsIgnoringCase } from '../db/like.js';
import { dialectOf } from '../db/index.js';
import { readableBy } from '../policy-store.js';

export type OrgWithCounts = OrgRow & { repo_count: number };

/**
 * Which orgs a list may show: only those `memberOf` belongs to (null: any), and only `onlyIds`
 * (null: any). The policy decides the values (policy.orgListScope).
 */
export interface OrgListScope {
  memberOf: string | null;
  onlyIds: string[] | null;
}

/** The org's repositories `readerId` may read (null: all of them). */
const repoCount = (readerId: string | null) => (eb: ExpressionBuilder<Database, 'orgs'>) =>
  eb.selectFrom('repos').whereRef('repos.org_id', '=', 'orgs.id').$if(readerId !== null, (q) => q.where(readableBy(readerId!)))
    .select((c) => c.fn.countAll<number>().as('n')).as('repo_count');

export function orgStore(db: Kysely<Database>) {
  const dialect = dialectOf(db);
  const counted = (row: OrgRow & { repo_count: number | string | null }): OrgWithCounts =>
    ({ ...row, repo_count: Number(row.repo_count ?? 0) });

  return {
    async insert(org: OrgRow): Promise<void> {
      await db.insertInto('orgs').values(org).execute();
    },

    /** Its repo_count counts what `readerId` may read (null: every repository). */
    async byId(id: string, readerId: string | null): Promise<OrgWithCounts | undefined> {
      const row = await db.selectFrom('orgs').selectAll('orgs').select(repoCount(readerId)).where('orgs.id', '=', id).executeTakeFirst();
      return row && counted(row);
    },

    async page(scope: OrgListScope, q: string, page: Page): Promise<Paged<OrgWithCounts>> {
      if (scope.onlyIds?.length === 0) return { total: 0, items: [] };
      let base = db.selectFrom('orgs');
      if (scope.memberOf !== null) {
        const userId = scope.memberOf;
        base = base.where('orgs.id', 'in', (eb) => eb.selectFrom('memberships').select('org_id').where('user_id', '=', userId));
      }
      if (scope.onlyIds !== null) base = base.where('orgs.id', 'in', scope.onlyIds);
      if (q) base = base.where(containsIgnoringCase(dialect, 'orgs.name_key', q));
      const { total, items } = await paginate(base, page, (q) => q.selectAll('orgs').select(repoCount(scope.memberOf)).orderBy('orgs.created_at').orderBy('orgs.id'));
      return { total, items: items.map(counted) };
    },

    async update(id: string, fields: Partial<Pick<OrgRow, 'name' | 'name_key' | 'description' | 'base_role'>> & { updated_at: string }): Promise<void> {
      await db.updateTable('orgs').set(fields).where('id', '=', id).execute();
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('orgs').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * Inside a transaction: a no-op write that takes the org row's lock, so that changes to its
     * members and teams are serialised (two owners demoting each other must not leave none).
     * SQLite has no SELECT ... FOR UPDATE; a write locks on both. False when the org is gone.
     */
    async lock(id: string): Promise<boolean> {
      const result = await db.updateTable('orgs').set((eb) => ({ description: eb.ref('description') }))
        .where('id', '=', id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
export type OrgStore = ReturnType<typeof orgStore>;
