import { Migrator, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { DB_KINDS, useEmptyDatabase } from '../support/db.js';

describe.each(DB_KINDS)('migration 0027 on %s', (kind) => {
  const database = useEmptyDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('lists each stored advisory once under each ecosystem it affects, with its modified', async () => {
    const migrator = new Migrator({ db: db.kysely, provider: migrationProvider });
    expect((await migrator.migrateTo('0026_audit_actor_indexes')).error).toBeUndefined();
    const before = db.kysely as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const advisory = (id: string, modified: string) => ({
      id, modified, published: null, withdrawn: null, aliases: '[]', summary: null, details: null, severity: 'high', cvss_score: null,
      imported_at: '2026-11-01T10:00:00.000Z', references: null,
    });
    await before.insertInto('advisories').values([advisory('GHSA-1', '2024-03-01T00:00:00Z'), advisory('GHSA-2', '2024-02-01T00:00:00Z'), advisory('GHSA-3', '2024-01-01T00:00:00Z')]).execute();
    const affected = (advisoryId: string, ordinal: number, ecosystem: string, name: string) => ({
      advisory_id: advisoryId, ordinal, ecosystem, name, package_key: `${ecosystem}/${name}`, ranges: '[]', versions: '[]',
    });
    await before.insertInto('advisory_packages').values([
      affected('GHSA-1', 0, 'npm', 'left-pad'), affected('GHSA-1', 1, 'npm', 'right-pad'), affected('GHSA-1', 2, 'PyPI', 'pad'),
      affected('GHSA-2', 0, 'Go', 'golang.org/x/net'),
    ]).execute();

    await db.migrate();
    const rows = await db.kysely.selectFrom('advisory_ecosystems').selectAll().execute();
    const key = (r: { advisory_id: string; ecosystem: string }) => `${r.advisory_id} ${r.ecosystem}`;
    expect(rows.sort((a, b) => (key(a) < key(b) ? -1 : 1))).toEqual([
      { advisory_id: 'GHSA-1', ecosystem: 'PyPI', modified: '2024-03-01T00:00:00Z' },
      { advisory_id: 'GHSA-1', ecosystem: 'npm', modified: '2024-03-01T00:00:00Z' },
      { advisory_id: 'GHSA-2', ecosystem: 'Go', modified: '2024-02-01T00:00:00Z' },
    ]);
    expect((await migrator.migrateTo('0026_audit_actor_indexes')).error).toBeUndefined();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    // Down and up again: the list is rebuilt from the packages.
    expect(await db.kysely.selectFrom('advisory_ecosystems').selectAll().execute()).toHaveLength(3);
  });
});
