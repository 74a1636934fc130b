import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';
import { quietLog, scansFor, seedRepository, statusRow, storeUpload } from '../support/scans.js';
import type { Scans } from '../../src/scans/index.js';
import { resultsStore } from '../../src/results/store.js';

describe.each(DB_KINDS)('findings across uploads on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  let scans: Scans;
  beforeAll(() => {
    db = database();
    scans = scansFor(db);
  });

  async function uploadDocument(repoId: string, document: string, category = '') {
    const id = await storeUpload(scans, repoId, document, category);
    await scans.drain(quietLog);
    return (await scans.uploads.byId(id))!;
  }
  const upload = (repoId: string, results: SarifResultSpec[], category = '') => uploadDocument(repoId, sarifLog(results), category);
  const openFindings = async (repoId: string) =>
    (await db.kysely.selectFrom('findings').select(['rule_id', 'file_path', 'state', 'reopened_at']).where('repository_id', '=', repoId).orderBy('rule_id').execute());

  const A: SarifResultSpec[] = [
    { rule: 'sql-injection', file: 'src/db.js', line: 10, level: 'error' },
    { rule: 'xss', file: 'src/view.js', line: 20, securitySeverity: 9.5 },
    { rule: 'weak-hash', file: 'src/hash.js', line: 5, level: 'note' },
  ];
  const B: SarifResultSpec[] = [A[0]!, A[2]!, { rule: 'path-traversal', file: 'src/files.js', line: 7, level: 'error' }];

  it('opens new findings, fixes missing ones and reopens returning ones', async () => {
    const repo = await seedRepository(db);
    const first = await upload(repo, A);
    expect(first).toMatchObject({ status: 'complete', new_count: 3, fixed_count: 0, reopened_count: 0, unchanged_count: 0, findings_count: 3 });

    const second = await upload(repo, B);
    expect(second).toMatchObject({ status: 'complete', new_count: 1, fixed_count: 1, reopened_count: 0, unchanged_count: 2 });
    const afterB = await openFindings(repo);
    expect(afterB.find((f) => f.rule_id === 'xss')!.state).toBe('fixed');
    expect(afterB.find((f) => f.rule_id === 'path-traversal')!.state).toBe('open');

    const third = await upload(repo, A);
    expect(third).toMatchObject({ new_count: 0, fixed_count: 1, reopened_count: 1, unchanged_count: 2 });
    const afterA = await openFindings(repo);
    const xss = afterA.find((f) => f.rule_id === 'xss')!;
    expect(xss.state).toBe('open');
    expect(xss.reopened_at).not.toBeNull();
    expect(afterA.find((f) => f.rule_id === 'path-traversal')!.state).toBe('fixed');

    const status = await statusRow(db, repo);
    expect(status).toMatchObject({ state: 'complete', open_critical: 1, open_high: 1, open_medium: 0, open_low: 1, open_info: 0 });
  });

  it('keeps a finding when its code moves, and tells identical findings in one file apart', async () => {
    const repo = await seedRepository(db);
    const twice = [{ rule: 'eval', file: 'a.js', line: 3 }, { rule: 'eval', file: 'a.js', line: 9 }];
    expect((await upload(repo, twice)).new_count).toBe(2);
    const moved = await upload(repo, [{ rule: 'eval', file: 'a.js', line: 13 }, { rule: 'eval', file: 'a.js', line: 19 }]);
    expect(moved).toMatchObject({ new_count: 0, fixed_count: 0, unchanged_count: 2 });
    const lines = await db.kysely.selectFrom('findings').select('start_line').where('repository_id', '=', repo).orderBy('start_line').execute();
    expect(lines.map((l) => l.start_line)).toEqual([13, 19]);
  });

  it('writes every moved finding in one pass: same ids, state and first upload, the new lines and details', async () => {
    const repo = await seedRepository(db);
    const fresh = await seedRepository(db);
    // 600 findings in 60 files; between the uploads every line moves down by one (a second location
    // too, where there is one), a formatter rewrites some snippets, one severity changes, and one
    // finding that was fixed comes back at its new line.
    const at = (i: number, shift: number): SarifResultSpec => ({
      rule: `rule-${i % 7}`, file: `src/file-${i % 60}.js`, line: 10 + i + shift,
      message: `rule-${i % 7} at ${i}`,
      level: i === 6 && shift ? 'error' : 'warning',
      snippet: i % 5 === 0 && shift ? `call(${i});` : `call( ${i} );`,
      ...(i % 3 === 0 ? { more: [{ file: `src/caller-${i % 60}.js`, line: 100 + i + shift }] } : {}),
    });
    const before = Array.from({ length: 600 }, (_, i) => at(i, 0));
    const moved = Array.from({ length: 600 }, (_, i) => at(i, 1));
    const columns = ['id', 'fingerprint', 'state', 'first_upload_id', 'created_at', 'rule_id', 'rule_name', 'message', 'severity',
      'severity_rank', 'level', 'file_path', 'start_line', 'end_line', 'occurrences', 'reopened_upload_id', 'locations', 'snippet'] as const;
    const rows = (repositoryId: string) => db.kysely.selectFrom('findings').select(columns)
      .where('repository_id', '=', repositoryId).orderBy('fingerprint').execute();

    const first = await upload(repo, before);
    await upload(repo, before.filter((_, i) => i !== 9));
    const original = await rows(repo);
    const again = await upload(repo, moved);
    expect(again).toMatchObject({ new_count: 0, fixed_count: 0, reopened_count: 1, unchanged_count: 599 });

    const after = await rows(repo);
    expect(after.map((r) => [r.id, r.fingerprint, r.first_upload_id, r.created_at]))
      .toEqual(original.map((r) => [r.id, r.fingerprint, r.first_upload_id, r.created_at]));
    expect(after.every((r) => r.state === 'open' && r.first_upload_id === first.id)).toBe(true);
    expect(after.filter((r) => r.reopened_upload_id === again.id)).toHaveLength(1);
    // The details are exactly what a first upload of the moved file stores.
    await upload(fresh, moved);
    const details = (r: (typeof after)[number]) => {
      const { id: _id, first_upload_id: _first, created_at: _created, reopened_upload_id: _reopened, ...rest } = r;
      return rest;
    };
    expect(after.map(details)).toEqual((await rows(fresh)).map(details));
    expect(after.filter((r) => r.level === 'error')).toHaveLength(1);
    // Where the code moved, the place is the new one: second locations and rewritten snippets too.
    expect(after.filter((r) => r.snippet === 'call(0);' || r.snippet === 'call(5);')).toHaveLength(2);
    const zero = after.find((r) => r.message === 'rule-0 at 0')!;
    expect(zero).toMatchObject({ start_line: 11, snippet: 'call(0);' });
    expect(JSON.parse(zero.locations!)).toEqual([{ path: 'src/file-0.js', startLine: 11, endLine: 11 }, { path: 'src/caller-0.js', startLine: 101, endLine: 101 }]);
  });

  it('stores text exactly as the tool wrote it, whatever characters the bulk write must escape', async () => {
    const repo = await seedRepository(db);
    // COPY's text format gives tab, newline, carriage return and backslash a meaning, and \N and \. too.
    const messages = ['tab\there', 'line\nbreak\r\nwindows', 'back\\slash \\N \\. \\t', '\\N', '\\.', 'quote " \' , ;', 'ünïcødé ✓ 𝄞', ' spaced '];
    await upload(repo, messages.map((message, i) => ({ rule: `r${i}`, file: `dir with space/f%${i}.js`, line: i + 1, message })));
    const stored = await db.kysely.selectFrom('findings').select(['rule_id', 'message', 'file_path'])
      .where('repository_id', '=', repo).orderBy('start_line').execute();
    expect(stored.map((f) => f.message)).toEqual(messages);
    expect(stored.map((f) => f.file_path)).toEqual(messages.map((_, i) => `dir with space/f%${i}.js`));
  });

  it('processes an upload kept inflated, as every upload was before migration 0021', async () => {
    const repo = await seedRepository(db);
    const log = sarifLog(A);
    const id = await storeUpload(scans, repo, log);
    await db.kysely.updateTable('upload_contents').set({ content: Buffer.from(log), encoding: null }).where('upload_id', '=', id).execute();
    await scans.drain(quietLog);
    expect(await scans.uploads.byId(id)).toMatchObject({ status: 'complete', new_count: 3 });
  });

  it('keeps one finding with a count for a result the tool repeats, and numbers only distinct ones', async () => {
    const repo = await seedRepository(db);
    const rows = () => db.kysely.selectFrom('findings').select(['id', 'start_line', 'occurrences', 'state'])
      .where('repository_id', '=', repo).orderBy('start_line').execute();
    const at = (line: number) => ({ rule: 'eval', file: 'a.js', line });
    const repeating = await upload(repo, [at(3), at(3), at(9), at(3)]);
    expect(repeating).toMatchObject({ new_count: 2, findings_count: 2 });
    const first = await rows();
    expect(first.map((r) => [r.start_line, r.occurrences])).toEqual([[3, 3], [9, 1]]);
    expect((await statusRow(db, repo))?.open_medium).toBe(2);

    // The tool stops repeating itself: the same two findings, nothing fixed, the count follows.
    const plain = await upload(repo, [at(3), at(9)]);
    expect(plain).toMatchObject({ new_count: 0, fixed_count: 0, unchanged_count: 2 });
    expect(await rows()).toEqual(first.map((r) => ({ ...r, occurrences: 1 })));
  });

  it('treats the same finding in another file as another finding', async () => {
    const repo = await seedRepository(db);
    await upload(repo, [{ rule: 'eval', file: 'a.js', message: 'eval is evil' }]);
    const other = await upload(repo, [{ rule: 'eval', file: 'b.js', message: 'eval is evil' }]);
    expect(other).toMatchObject({ new_count: 1, fixed_count: 1 });
  });

  it('keeps each tool of a several-run upload in its own analysis, however many findings each brings', async () => {
    // Each tool's fingerprints are worked out while the tool before it is written: enough findings
    // per tool for that to take several turns, and the same rule and file under every tool, so a
    // finding filed under the wrong analysis would show.
    const repo = await seedRepository(db);
    const tools = ['Alpha', 'Beta', 'Gamma'];
    const results = (tool: string, count: number, shift = 0): SarifResultSpec[] => Array.from({ length: count }, (_, i) => ({
      rule: `rule-${i % 11}`, file: `src/file-${i % 97}.js`, line: 1 + i + shift, message: `${tool} issue ${i}`,
    }));
    const log = (counts: number[], shift = 0) => JSON.stringify({
      version: '2.1.0',
      runs: tools.map((tool, t) => JSON.parse(sarifLog(results(tool, counts[t]!, shift), tool)).runs[0]),
    });
    const perTool = () => db.kysely.selectFrom('findings').innerJoin('analyses', 'analyses.id', 'findings.analysis_id')
      .select(['analyses.tool', 'findings.message', 'findings.state', 'findings.start_line'])
      .where('findings.repository_id', '=', repo).execute();

    expect(await uploadDocument(repo, log([4_500, 3_000, 5_200]))).toMatchObject({ status: 'complete', new_count: 12_700, findings_count: 12_700 });
    const first = await perTool();
    for (const [t, tool] of tools.entries()) {
      const mine = first.filter((f) => f.tool === tool);
      expect(mine).toHaveLength([4_500, 3_000, 5_200][t]!);
      expect(mine.every((f) => f.message.startsWith(`${tool} issue `) && f.state === 'open')).toBe(true);
    }
    // Code moved, Beta lost 1,000 findings and Gamma gained 800: only those count.
    const second = await uploadDocument(repo, log([4_500, 2_000, 6_000], 1));
    expect(second).toMatchObject({ status: 'complete', new_count: 800, fixed_count: 1_000, unchanged_count: 11_700 });
    const after = await perTool();
    expect(after.filter((f) => f.tool === 'Beta' && f.state === 'fixed')).toHaveLength(1_000);
    expect(after.filter((f) => f.tool === 'Gamma' && f.state === 'open')).toHaveLength(6_000);
    expect(after.filter((f) => f.state === 'open').every((f) => f.start_line === 2 + Number(f.message.split(' ').at(-1)))).toBe(true);
  });

  it('keeps analyses of one tool apart by category', async () => {
    const repo = await seedRepository(db);
    await upload(repo, A, 'backend');
    const frontend = await upload(repo, [{ rule: 'xss', file: 'web/app.js' }], 'frontend');
    expect(frontend).toMatchObject({ new_count: 1, fixed_count: 0 });
    const status = await statusRow(db, repo);
    expect(status!.open_critical + status!.open_high + status!.open_medium + status!.open_low).toBe(4);
    expect((await resultsStore(db.kysely, db.dialect).status('nobody', repo, { kind: 'branch', name: 'main' }))!.analyses.map((a) => a.category)).toEqual(['backend', 'frontend']);
  });

  it('processes an upload twice with the same end state (at-least-once claim, exactly-once effect)', async () => {
    const repo = await seedRepository(db);
    const id = await storeUpload(scans, repo, sarifLog(A));
    const claimed = (await scans.uploads.claim(60_000))!;
    expect(claimed.upload.id).toBe(id);
    // The worker "dies"; its lease runs out and another worker takes the upload again.
    await db.kysely.updateTable('uploads').set({ lease_until: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    expect(await scans.drain(quietLog)).toBe(1);
    // The first worker wakes up and tries to commit: its claim is stale, so nothing is written twice.
    const { processClaimed } = await import('../../src/scans/worker.js');
    await processClaimed({ db, uploads: scans.uploads, log: quietLog }, claimed, { leaseMs: 60_000, pollMs: 1000, maxAttempts: 5 });
    const findings = await db.kysely.selectFrom('findings').select('id').where('repository_id', '=', repo).execute();
    expect(findings).toHaveLength(3);
    expect((await scans.uploads.byId(id))!).toMatchObject({ status: 'complete', new_count: 3, attempts: 2 });
  });

  it('fails an upload that cannot be parsed, with a reason, and keeps earlier results', async () => {
    const repo = await seedRepository(db);
    await upload(repo, A);
    const sarif1 = JSON.stringify({ version: '1.0.0', runs: [] });
    const id = await storeUpload(scans, repo, sarif1);
    await scans.drain(quietLog);
    const failed = (await scans.uploads.byId(id))!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/2\.1\.0/);
    const status = await statusRow(db, repo);
    expect(status).toMatchObject({ state: 'failed', open_critical: 1, open_high: 1, open_low: 1 });
  });
});
