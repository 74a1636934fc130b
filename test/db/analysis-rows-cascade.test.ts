import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { quietLog, scansFor, seedRepository, storeUpload } from '../support/scans.js';

/**
 * Findings and components go with their analysis, however it goes: on PostgreSQL a trigger does
 * this (migration 0022: no foreign key checks them row by row), on SQLite the foreign key.
 */
describe.each(DB_KINDS)('rows of a deleted analysis on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  const bom = JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.5', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'syft', version: '1.0.0' }] } },
    components: [{ type: 'library', name: 'left-pad', version: '1.0.0' }, { type: 'library', name: 'is-odd', version: '3.0.1' }],
  });
  const count = async (table: 'findings' | 'components' | 'analyses', repositoryId: string) =>
    (await db.kysely.selectFrom(table).select('id').where('repository_id', '=', repositoryId).execute()).length;

  /** A repository with a SARIF analysis (two findings) and an SBOM analysis (two components). */
  async function scanned(name: string): Promise<string> {
    const scans = scansFor(db);
    const repo = await seedRepository(db, name);
    await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }, { rule: 's', file: 'b.js' }]));
    await storeUpload(scans, repo, bom);
    await scans.drain(quietLog);
    expect([await count('findings', repo), await count('components', repo), await count('analyses', repo)]).toEqual([2, 2, 2]);
    return repo;
  }

  it('removes them with the analysis, and only its own', async () => {
    const repo = await scanned('one-analysis');
    const other = await scanned('other');
    const sarif = await db.kysely.selectFrom('analyses').select('id').where('repository_id', '=', repo).where('format', '=', 'sarif').executeTakeFirstOrThrow();
    await db.kysely.deleteFrom('analyses').where('id', '=', sarif.id).execute();
    expect([await count('findings', repo), await count('components', repo)]).toEqual([0, 2]);
    expect([await count('findings', other), await count('components', other)]).toEqual([2, 2]);
  });

  it('removes them when the repository goes, through its analyses', async () => {
    const repo = await scanned('deleted-repo');
    const other = await scanned('kept-repo');
    await db.kysely.deleteFrom('repos').where('id', '=', repo).execute();
    expect([await count('findings', repo), await count('components', repo), await count('analyses', repo)]).toEqual([0, 0, 0]);
    expect([await count('findings', other), await count('components', other)]).toEqual([2, 2]);
  });

  it('removes them when the ref goes', async () => {
    const repo = await scanned('deleted-ref');
    await db.kysely.deleteFrom('refs').where('repository_id', '=', repo).execute();
    expect([await count('findings', repo), await count('components', repo), await count('analyses', repo)]).toEqual([0, 0, 0]);
  });
});
