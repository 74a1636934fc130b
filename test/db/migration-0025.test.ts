import { Migrator, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { newId } from '../../src/db/ids.js';
import { refreshRefTotals } from '../../src/results/status-store.js';
import { DB_KINDS, useEmptyDatabase } from '../support/db.js';
import { seedRepository } from '../support/scans.js';

describe.each(DB_KINDS)('migration 0025 on %s', (kind) => {
  const database = useEmptyDatabase(kind);
  let db: Db;
  beforeAll(() => {
    db = database();
  });

  it('gives each existing ref the list of its analyses, as ingest writes it from then on', async () => {
    const migrator = new Migrator({ db: db.kysely, provider: migrationProvider });
    expect((await migrator.migrateTo('0024_lookup_indexes')).error).toBeUndefined();
    const before = db.kysely as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const repo = await seedRepository(db);
    const at = (day: number) => `2026-11-0${day}T10:00:00.000Z`;
    const ref = (name: string) => ({
      id: newId(), repository_id: repo, kind: 'branch', name, base_ref: null, state: 'complete', last_upload_at: at(1), last_completed_at: at(1),
      open_critical: 1, open_high: 2, open_medium: 0, open_low: 0, open_info: 3, components: 0, fixed_total: 0,
    });
    const main = ref('main');
    const release = ref('release');
    const empty = ref('empty');
    await before.insertInto('refs').values([main, release, empty]).execute();
    const upload = (name: string) => ({
      id: newId(), repository_id: repo, format: 'sarif', status: 'complete', sha256: 'a'.repeat(64), size_bytes: 1, category: '', ref_kind: 'branch',
      ref_name: name, created_at: at(1), completed_at: at(2),
    });
    const uploads = [upload('main'), upload('main'), upload('release')];
    await before.insertInto('uploads').values(uploads).execute();
    const analysis = (refId: string, tool: string, uploadId: string, open: number) => ({
      id: newId(), repository_id: repo, ref_id: refId, tool, tool_version: null, category: '', format: 'sarif', last_upload_id: uploadId,
      completed_at: at(3), open_critical: open, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0, fixed_total: 0, dismissed: 1,
    });
    await before.insertInto('analyses').values([
      analysis(main.id, 'Semgrep', uploads[0]!.id, 1), analysis(main.id, 'CodeQL', uploads[1]!.id, 2), analysis(release.id, 'Trivy', uploads[2]!.id, 0),
    ]).execute();

    await db.migrate();
    const listOf = async (refId: string) => {
      const row = await db.kysely.selectFrom('refs').select('analyses').where('id', '=', refId).executeTakeFirstOrThrow();
      return row.analyses === null ? null : JSON.parse(row.analyses) as unknown;
    };
    const shown = (tool: string, uploadId: string, open: number) => ({
      tool, category: '', format: 'sarif', last_upload_id: uploadId, completed_at: at(3),
      open_critical: open, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, dismissed: 1, upload_status: 'complete',
    });
    const migrated = { main: await listOf(main.id), release: await listOf(release.id), empty: await listOf(empty.id) };
    expect(migrated).toEqual({
      main: [shown('CodeQL', uploads[1]!.id, 2), shown('Semgrep', uploads[0]!.id, 1)],
      release: [shown('Trivy', uploads[2]!.id, 0)],
      empty: null,
    });
    // What ingest, triage and deletes write from now on is the same list.
    for (const refId of [main.id, release.id]) await refreshRefTotals(db.kysely, refId);
    expect({ main: await listOf(main.id), release: await listOf(release.id) }).toEqual({ main: migrated.main, release: migrated.release });
  });
});
