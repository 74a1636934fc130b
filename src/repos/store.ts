import type { Kysely } from 'kysely';
import type { Database, RepoRow } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import { containsIgnoringCase } from '../db/like.js';

export function repoStore(db: Kysely<Database>) {
  return {
    async insert(repo: RepoRow): Promise<void> {
      await db.insertInto('repos').values(repo).execute();
    },

    byId(id: string): Promise<RepoRow | undefined> {
      return db.selectFrom('repos').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async page(orgId: string, q: string, page: Page): Promise<{ total: number; items: RepoRow[] }> {
      let base = db.selectFrom('repos').where('org_id', '=', orgId);
      if (q) base = base.where(containsIgnoringCase('repos.name_key', q));
      const [count, items] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        base.selectAll().orderBy('created_at').orderBy('id').limit(page.perPage).offset(page.offset).execute(),
      ]);
      return { total: Number(count.n), items };
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('repos').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type RepoStore = ReturnType<typeof repoStore>;
