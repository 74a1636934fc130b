import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { compiledOnce } from '../../src/db/compiled.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { seedRepository } from '../support/scans.js';

describe.each(DB_KINDS)('hot reads compiled once on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('runs with each call\'s values, as a statement PostgreSQL prepares once per connection', async () => {
    const repoId = await seedRepository(db, 'hot');
    await db.kysely.connection().execute(async (connection) => {
      const nameOf = compiledOnce(connection, connection.selectFrom('repos').select(['repos.id', 'repos.name']).where('repos.id', '=', ''));
      expect(await nameOf(repoId)).toEqual([{ id: repoId, name: 'hot' }]);
      expect(await nameOf('none')).toEqual([]);
      if (kind !== 'postgres') return;
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(connection);
      expect(prepared.rows).toContainEqual({ name: expect.stringMatching(/^scanyard_hot_\d+$/), statement: expect.stringContaining('from "repos" where "repos"."id" = $1') });
    });
  });

  it('refuses a query that does not name its columns (a prepared statement\'s columns may not change under it)', () => {
    expect(() => compiledOnce(db.kysely, db.kysely.selectFrom('repos').selectAll('repos'))).toThrow(/names its columns/);
    expect(() => compiledOnce(db.kysely, db.kysely.selectFrom('repos').selectAll())).toThrow(/names its columns/);
  });
});
