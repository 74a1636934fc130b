import { Migrator, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { newId } from '../../src/db/ids.js';
import { now } from '../../src/db/time.js';
import { DB_KINDS, useEmptyDatabase } from '../support/db.js';
import { seedRepository } from '../support/scans.js';

describe.each(DB_KINDS)('migration 0005 on %s', (kind) => {
  const database = useEmptyDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('gives existing analyses the canonical tool name, unless that would make two analyses one', async () => {
    const migrator = new Migrator({ db: db.kysely, provider: migrationProvider });
    const before = await migrator.migrateTo('0003_findings_page_index');
    expect(before.error).toBeUndefined();
    const repo = await seedRepository(db);
    const at = now();
    const analysis = (tool: string, format: string, category = '') => ({
      id: newId(), repository_id: repo, tool, tool_version: null, category, format, last_upload_id: newId(), completed_at: at,
      open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0, fixed_total: 0,
    });
    const rows = [
      analysis('trivy', 'cyclonedx'), analysis('Trivy', 'sarif'), analysis('Semgrep OSS', 'sarif'),
      // Both spellings of one identity: renaming either would collide, so both stay.
      analysis('Semgrep OSS', 'sarif', 'web'), analysis('Semgrep', 'sarif', 'web'),
      analysis('CodeQL command-line toolchain', 'sarif'),
    ];
    // The tables as they were before 0005: analyses had no ref yet.
    const before0005 = db.kysely as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await before0005.insertInto('analyses').values(rows).execute();

    await db.migrate();
    const names = await db.kysely.selectFrom('analyses').select(['id', 'tool']).execute();
    const toolOf = new Map(names.map((r) => [r.id, r.tool]));
    expect(rows.map((r) => toolOf.get(r.id))).toEqual(['Trivy', 'Trivy', 'Semgrep', 'Semgrep OSS', 'Semgrep', 'CodeQL command-line toolchain']);
    const columns = await db.kysely.selectFrom('findings').select(['fixed_upload_id', 'reopened_upload_id']).execute();
    expect(columns).toEqual([]);
  });
});
