import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, RefRow } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { defaultBranch, type RefName } from '../domain/ref-name.js';

/** Refs that retention may remove: every kind but tags, which are releases and are kept. */
const RETAINED_KINDS = ['branch', 'pull_request'];

/**
 * The id of a repository's ref by name (a gate's, a VEX export's, a bulk triage's), in or out of a
 * transaction; undefined when the ref has no results yet.
 */
export async function refIdOf(db: Kysely<Database>, repositoryId: string, ref: RefName): Promise<string | undefined> {
  const row = await db.selectFrom('refs').select('id')
    .where('repository_id', '=', repositoryId).where('kind', '=', ref.kind).where('name', '=', ref.name).executeTakeFirst();
  return row?.id;
}

/**
 * The branch defaultBranch() (domain/ref-name.ts) reads a repository's default_branch as, in SQL,
 * so that a query across thousands of repositories joins their default branches' refs itself:
 * unset or empty, a tag, a pull request or another refs/ path is main; refs/heads/x is x. A name git
 * refuses (checked where default_branch is written through the API) is not looked at again here:
 * no ref can carry such a name. test/db/default-branch.test.ts holds both readings side by side.
 */
export function defaultBranchName(): RawBuilder<string> {
  const raw = sql.ref('repos.default_branch');
  // substr, not LIKE: SQLite's LIKE ignores case, and REFS/HEADS/x is a branch of that whole name.
  return sql<string>`case
    when ${raw} is null or ${raw} = '' then 'main'
    when substr(${raw}, 1, 11) = 'refs/heads/' and length(${raw}) > 11 then substr(${raw}, 12)
    when substr(${raw}, 1, 5) = 'refs/' then 'main'
    when substr(${raw}, 1, 3) = 'pr/' and length(${raw}) > 3 and ltrim(substr(${raw}, 4), '0123456789') = '' then 'main'
    else ${raw} end`;
}

export function refStore(db: Kysely<Database>) {
  return {
    byName(repositoryId: string, ref: RefName): Promise<RefRow | undefined> {
      return db.selectFrom('refs').selectAll()
        .where('repository_id', '=', repositoryId).where('kind', '=', ref.kind).where('name', '=', ref.name)
        .executeTakeFirst();
    },

    /** The default branch first, then branches, pull requests and tags, each most recently uploaded first. */
    page(repositoryId: string, defaultRef: RefName, page: Page): Promise<Paged<RefRow>> {
      const group = sql<number>`case when kind = 'branch' and name = ${defaultRef.name} then 0
        when kind = 'branch' then 1 when kind = 'pull_request' then 2 else 3 end`;
      return paginate(db.selectFrom('refs').where('repository_id', '=', repositoryId), page,
        (q) => q.selectAll().orderBy(group).orderBy('last_upload_at', 'desc').orderBy('name').orderBy('id'));
    },

    /**
     * Removes branches and pull requests that received no upload since `olderThan`, never a
     * repository's default branch; their analyses, findings and components go with them (foreign
     * keys cascade). The age is checked again in the delete, so a ref that has just received an
     * upload stays. Returns how many were removed.
     */
    async removeIdle(olderThan: string): Promise<number> {
      const idle = await db.selectFrom('refs').innerJoin('repos', 'repos.id', 'refs.repository_id')
        .select(['refs.id', 'refs.kind', 'refs.name', 'repos.default_branch'])
        .where('refs.kind', 'in', RETAINED_KINDS).where('refs.last_upload_at', '<', olderThan)
        .execute();
      const ids = idle.filter((r) => !(r.kind === 'branch' && r.name === defaultBranch(r.default_branch).name)).map((r) => r.id);
      let removed = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const result = await db.deleteFrom('refs').where('id', 'in', ids.slice(i, i + 500))
          .where('last_upload_at', '<', olderThan).executeTakeFirst();
        removed += Number(result.numDeletedRows);
      }
      return removed;
    },
  };
}
export type RefStore = ReturnType<typeof refStore>;
