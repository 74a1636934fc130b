import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { newId } from '../../src/db/ids.js';
import { defaultBranch } from '../../src/domain/ref-name.js';
import { defaultBranchName } from '../../src/refs/store.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';

/**
 * Metrics join every repository's default branch in SQL (refs/store.ts defaultBranchName); the rest
 * of the code reads default_branch with defaultBranch() (domain/ref-name.ts). Both must name the
 * same branch for every spelling default_branch can hold, or a repository's figures come from
 * another branch, or from none.
 */
const SPELLINGS = [
  null, '', 'main', 'master', 'develop', 'release/1.x', 'refs/heads/trunk', 'refs/heads/release/2.0',
  // A branch whose own name reads as another kind of ref, spelled out in full.
  'refs/heads/pr/7', 'refs/heads/refs/x',
  // Not branches: the default branch is then main.
  'refs/tags/v1.0.0', 'refs/pull/12/merge', 'refs/merge-requests/3/head', 'pr/7', 'pr/0', 'refs/remotes/origin/main', 'refs/heads/',
  // SQLite's LIKE ignores case; these are branches of that whole name.
  'REFS/HEADS/x', 'Refs/tags/v1', 'PR/7', 'pr/7a',
  // Names git refuses (pr/, a//b, x..y) are left out: the API refuses them as default_branch, a forge
  // has none, and a ref cannot carry one, so SQL does not repeat git's rules.
];

describe.each(DB_KINDS)('the default branch read in SQL on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('is the branch defaultBranch() reads, for every spelling', async () => {
    const orgId = newId();
    const at = new Date().toISOString();
    await db.kysely.insertInto('orgs').values({ id: orgId, name: 'o', name_key: 'o', description: '', created_at: at, updated_at: at }).execute();
    const repos = SPELLINGS.map((spelling, i) => ({ id: newId(), org_id: orgId, name: `r${i}`, name_key: `r${i}`, url: null, default_branch: spelling, created_at: at, updated_at: at }));
    await db.kysely.insertInto('repos').values(repos).execute();
    const rows = await db.kysely.selectFrom('repos').select(['repos.default_branch', defaultBranchName().as('branch')]).where('repos.org_id', '=', orgId).execute();
    expect(rows).toHaveLength(SPELLINGS.length);
    for (const row of rows) expect([row.default_branch, row.branch]).toEqual([row.default_branch, defaultBranch(row.default_branch).name]);
  });
});
