import { beforeAll, describe, expect, it } from 'vitest';
import { Migrator, type Kysely } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { fingerprintAll } from '../../src/scans/fingerprint.js';
import { parseScan } from '../../src/scans/parsers/index.js';
import { DB_KINDS, useEmptyDatabase } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';
import { quietLog, scansFor, storeUpload } from '../support/scans.js';
import { resultsStore } from '../../src/results/store.js';
import { refStore } from '../../src/refs/store.js';

const X: SarifResultSpec = { rule: 'sql-injection', file: 'src/db.js', level: 'error' };
const Y: SarifResultSpec = { rule: 'xss', file: 'src/view.js', level: 'error' };
const Z: SarifResultSpec = { rule: 'weak-hash', file: 'src/hash.js', level: 'note' };
const W: SarifResultSpec = { rule: 'eval', file: 'src/run.js', level: 'warning' };

/** The fingerprints ingest gives these results, so seeded rows match what a new upload brings. */
function fingerprints(results: SarifResultSpec[]): string[] {
  return fingerprintAll(parseScan(Buffer.from(sarifLog(results)), 'sarif', 'json').analyses[0]!.findings);
}

describe.each(DB_KINDS)('migration 0006 (results per ref) on %s', (kind) => {
  const database = useEmptyDatabase(kind);
  let db: Db;
  const at = '2026-01-02T03:04:05.000Z';
  const ids = { org: 'org-1', plain: 'repo-plain', develop: 'repo-develop', unscanned: 'repo-unscanned' };
  let statusBefore: unknown[];

  beforeAll(async () => {
    db = database();
    const names = Object.keys(await migrationProvider.getMigrations()).sort();
    const previous = names[names.indexOf('0006_refs') - 1]!;
    const migrated = await new Migrator({ db: db.kysely, provider: migrationProvider }).migrateTo(previous);
    expect(migrated.error).toBeUndefined();

    // Rows as the schema before 0006 held them, written as that version of the service would have.
    const k = db.kysely as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await k.insertInto('orgs').values({ id: ids.org, name: 'o', name_key: 'o', description: '', created_at: at, updated_at: at }).execute();
    for (const [id, branch] of [[ids.plain, null], [ids.develop, 'refs/heads/develop'], [ids.unscanned, 'trunk']]) {
      await k.insertInto('repos').values({ id, org_id: ids.org, name: id, name_key: id, url: null, default_branch: branch, created_at: at, updated_at: at }).execute();
    }
    const upload = (id: string, repositoryId: string, ref: string | null, format = 'sarif') => k.insertInto('uploads').values({
      id, repository_id: repositoryId, format, status: 'complete', sha256: 'x', size_bytes: 1, category: '', ref, tools: '["TestScanner"]',
      attempts: 1, created_at: at, started_at: at, completed_at: at,
    }).execute();
    // This upload named a pull request, which the old service applied to the repository's only results.
    await upload('u-plain', ids.plain, 'refs/pull/1/merge');
    await upload('u-plain-sbom', ids.plain, null, 'cyclonedx');
    await upload('u-develop', ids.develop, 'develop');
    const analysis = (id: string, repositoryId: string, uploadId: string, tool: string, format: string, counts: Record<string, number>) =>
      k.insertInto('analyses').values({
        id, repository_id: repositoryId, tool, tool_version: '1', category: '', format, last_upload_id: uploadId, completed_at: at,
        open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0, fixed_total: 0, ...counts,
      }).execute();
    await analysis('a-plain', ids.plain, 'u-plain', 'TestScanner', 'sarif', { open_high: 2, open_low: 1, fixed_total: 1 });
    await analysis('a-plain-sbom', ids.plain, 'u-plain-sbom', 'syft', 'cyclonedx', { components: 1 });
    await analysis('a-develop', ids.develop, 'u-develop', 'TestScanner', 'sarif', { open_high: 1 });
    const [fx, fy, fz, fw] = fingerprints([X, Y, Z, W]);
    const finding = (id: string, repositoryId: string, analysisId: string, fingerprint: string, rule: string, severity: string, rank: number, state: string) =>
      k.insertInto('findings').values({
        id, repository_id: repositoryId, analysis_id: analysisId, fingerprint, rule_id: rule, message: rule, severity, severity_rank: rank,
        state, first_upload_id: 'u-plain', created_at: at, updated_at: at, fixed_at: state === 'fixed' ? at : null,
      }).execute();
    await finding('f1', ids.plain, 'a-plain', fx!, X.rule, 'high', 3, 'open');
    await finding('f2', ids.plain, 'a-plain', fy!, Y.rule, 'high', 3, 'open');
    await finding('f3', ids.plain, 'a-plain', fz!, Z.rule, 'low', 1, 'open');
    await finding('f4', ids.plain, 'a-plain', fw!, W.rule, 'medium', 2, 'fixed');
    await finding('f5', ids.develop, 'a-develop', fx!, X.rule, 'high', 3, 'open');
    await k.insertInto('components').values({
      id: 'c1', repository_id: ids.plain, analysis_id: 'a-plain-sbom', upload_id: 'u-plain-sbom', ref: null, name: 'left-pad', version: '1.0.0',
      purl: null, type: 'library', licenses: '[]', hashes: '[]', depends_on: '[]',
    }).execute();
    const status = (repositoryId: string, counts: Record<string, number>) => k.insertInto('repo_status').values({
      repository_id: repositoryId, state: 'complete', last_upload_at: at, last_completed_at: at,
      open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0, ...counts,
    }).execute();
    await status(ids.plain, { open_high: 2, open_low: 1, components: 1 });
    await status(ids.develop, { open_high: 1 });
    statusBefore = await db.kysely.selectFrom('repo_status').selectAll().orderBy('repository_id').execute();

    await db.migrate();
  });
  it('gives every scanned repository its default branch, holding all its analyses with counts unchanged', async () => {
    const refs = await db.kysely.selectFrom('refs').selectAll().orderBy('repository_id').execute();
    expect(refs.map((r) => [r.repository_id, r.kind, r.name, r.state])).toEqual([
      [ids.develop, 'branch', 'develop', 'complete'],
      [ids.plain, 'branch', 'main', 'complete'],
    ]);
    expect(refs.find((r) => r.repository_id === ids.plain)).toMatchObject({ open_high: 2, open_low: 1, components: 1, fixed_total: 1 });
    // Later migrations add columns (vulnerabilities, null until a ref's next totals); the counts are what they were.
    const statusAfter = await db.kysely.selectFrom('repo_status').selectAll().orderBy('repository_id').execute();
    expect(statusAfter.map(({ vulnerabilities, ...before }) => ({ before, vulnerabilities }))).toEqual(statusBefore.map((before) => ({ before, vulnerabilities: null })));

    const refOf = Object.fromEntries(refs.map((r) => [r.repository_id, r.id]));
    const analyses = await db.kysely.selectFrom('analyses').select(['id', 'repository_id', 'ref_id', 'open_high', 'fixed_total']).orderBy('id').execute();
    expect(analyses).toEqual([
      { id: 'a-develop', repository_id: ids.develop, ref_id: refOf[ids.develop], open_high: 1, fixed_total: 0 },
      { id: 'a-plain', repository_id: ids.plain, ref_id: refOf[ids.plain], open_high: 2, fixed_total: 1 },
      { id: 'a-plain-sbom', repository_id: ids.plain, ref_id: refOf[ids.plain], open_high: 0, fixed_total: 0 },
    ]);
    const findings = await db.kysely.selectFrom('findings').select(['id', 'ref_id', 'state']).orderBy('id').execute();
    expect(findings.map((f) => [f.id, f.ref_id === refOf[f.id === 'f5' ? ids.develop : ids.plain], f.state]))
      .toEqual([['f1', true, 'open'], ['f2', true, 'open'], ['f3', true, 'open'], ['f4', true, 'fixed'], ['f5', true, 'open']]);
    expect(await db.kysely.selectFrom('components').select('id').execute()).toHaveLength(1);
    const uploads = await db.kysely.selectFrom('uploads').select(['id', 'ref', 'ref_kind', 'ref_name', 'base_ref', 'vs_base_new']).orderBy('id').execute();
    expect(uploads).toEqual([
      { id: 'u-develop', ref: 'develop', ref_kind: 'branch', ref_name: 'develop', base_ref: null, vs_base_new: null },
      { id: 'u-plain', ref: 'refs/pull/1/merge', ref_kind: 'branch', ref_name: 'main', base_ref: null, vs_base_new: null },
      { id: 'u-plain-sbom', ref: null, ref_kind: 'branch', ref_name: 'main', base_ref: null, vs_base_new: null },
    ]);
  });

  it('reads the migrated results through the default branch, and the next upload tracks against them', async () => {
    const scans = scansFor(db);
    const ref = (await refStore(db.kysely).byName(ids.plain, { kind: 'branch', name: 'main' }))!;
    const page = { page: 1, perPage: 30, offset: 0 };
    const open = await resultsStore(db.kysely, db.dialect).findings(ref.id, { state: 'open' }, page);
    expect(open.total).toBe(3);
    expect(open.items.map((f) => f.id).sort()).toEqual(['f1', 'f2', 'f3']);
    expect((await resultsStore(db.kysely, db.dialect).findings(ref.id, { state: 'fixed' }, page)).total).toBe(1);
    expect((await resultsStore(db.kysely, db.dialect).components(ids.plain, ref.id, undefined, page)).items.map((c) => c.name)).toEqual(['left-pad']);
    expect((await resultsStore(db.kysely, db.dialect).status('nobody', ids.plain, { kind: 'branch', name: 'main' }))!.analyses).toHaveLength(2);

    const id = await storeUpload(scans, ids.plain, sarifLog([X, Y, W]));
    await scans.drain(quietLog);
    expect(await scans.uploads.byId(id)).toMatchObject({ status: 'complete', new_count: 0, fixed_count: 1, reopened_count: 1, unchanged_count: 2 });
    expect(await db.kysely.selectFrom('repo_status').selectAll().where('repository_id', '=', ids.plain).executeTakeFirst())
      .toMatchObject({ open_high: 2, open_medium: 1, open_low: 0, components: 1 });
    expect(await db.kysely.selectFrom('analyses').select('id').where('repository_id', '=', ids.plain).execute()).toHaveLength(2);
  });
});
