import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { CORPUS } from '../support/corpus.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';

interface Analysis { id: string; tool: string; category: string; format: string; findings: { open: number; fixed: number; high: number }; components: number }

describe.each(DB_KINDS)('analyses on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let member: { cookie: string };
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    owner = await t.user('owner');
    const m = await t.user('member');
    member = m;
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/members/${m.user.id}`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
  });
  afterAll(() => t.close());

  const newRepo = async (name: string) =>
    (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name } })).json().id as string;
  const upload = async (repo: string, body: string | Buffer, query = '') => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload${query}`, headers: { cookie: owner.cookie, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode).toBe(202);
  };
  const get = async <T>(url: string, cookie = owner.cookie) => {
    const res = await t.request({ url, headers: { cookie } });
    expect(res.statusCode, url).toBe(200);
    return res.json<T>();
  };
  const remove = (repo: string, analysis: string, cookie = owner.cookie) =>
    t.request({ method: 'DELETE', url: `/api/v1/repos/${repo}/analyses/${analysis}`, headers: { cookie } });

  it('lists a repository\'s analyses to its members, and removes one with its findings and components for owners', async () => {
    const repo = await newRepo('api');
    // The mistake: one tool's results uploaded twice, once without a category.
    await upload(repo, sarifLog([{ rule: 'a', file: 'x.js', level: 'error' }, { rule: 'b', file: 'y.js', level: 'error' }], 'Semgrep'), '?category=backend');
    await upload(repo, sarifLog([{ rule: 'a', file: 'x.js', level: 'error' }, { rule: 'b', file: 'y.js', level: 'error' }, { rule: 'c', file: 'z.js' }], 'Semgrep'));
    await upload(repo, fs.readFileSync(path.join(CORPUS, 'cyclonedx/trivy-conda-1.6.cdx.json')));
    await t.drain();

    const analyses = await get<Analysis[]>(`/api/v1/repos/${repo}/analyses`, member.cookie);
    expect(analyses.map((a) => [a.tool, a.category, a.format])).toEqual([
      ['Semgrep', '', 'sarif'], ['Semgrep', 'backend', 'sarif'], ['Trivy', '', 'cyclonedx'],
    ]);
    const [duplicate, kept, sbom] = analyses as [Analysis, Analysis, Analysis];
    expect(duplicate.findings).toMatchObject({ open: 3, high: 2, fixed: 0 });
    expect(sbom.components).toBeGreaterThan(0);
    const before = await get<{ findings: { open: number }; components: number; analyses: unknown[] }>(`/api/v1/repos/${repo}/status`);
    expect(before.findings.open).toBe(5);

    expect((await remove(repo, duplicate.id, member.cookie)).statusCode).toBe(403);
    expect((await remove(repo, duplicate.id)).statusCode).toBe(204);
    const after = await get<{ findings: { open: number; high: number }; components: number; analyses: { category: string }[] }>(`/api/v1/repos/${repo}/status`);
    expect(after.findings).toMatchObject({ open: 2, high: 2 });
    expect(after.components).toBe(sbom.components);
    expect(after.analyses.map((a) => a.category)).toEqual(['backend', '']);
    const findings = await get<{ category: string }[]>(`/api/v1/repos/${repo}/findings?state=all`);
    expect(findings).toHaveLength(2);
    expect(findings.every((f) => f.category === 'backend')).toBe(true);
    expect(await t.db.kysely.selectFrom('findings').select('id').where('analysis_id', '=', duplicate.id).execute()).toEqual([]);
    expect((await get<Analysis[]>(`/api/v1/repos/${repo}/analyses`)).map((a) => a.id)).toEqual([kept.id, sbom.id]);

    expect((await remove(repo, sbom.id)).statusCode).toBe(204);
    expect((await get<{ components: number }>(`/api/v1/repos/${repo}/status`)).components).toBe(0);
    expect(await get(`/api/v1/repos/${repo}/components`)).toEqual([]);
    expect(await t.db.kysely.selectFrom('components').select('id').where('analysis_id', '=', sbom.id).execute()).toEqual([]);

    const gone = await remove(repo, duplicate.id);
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['content-type']).toContain('application/problem+json');

    const log = await get<{ action: string; target: { id: string }; details: Record<string, unknown> }[]>(`/api/v1/orgs/${orgId}/audit?action=analysis.deleted`);
    expect(log.map((e) => e.target.id)).toEqual([sbom.id, duplicate.id]);
    expect(log[1]!.details).toMatchObject({ repository_id: repo, tool: 'Semgrep', category: '', format: 'sarif', findings: 3, components: 0 });
  });

  it('answers 404 for an analysis of another repository, and leaves it alone', async () => {
    const mine = await newRepo('mine');
    const other = await newRepo('other');
    await upload(other, sarifLog([{ rule: 'a', file: 'x.js' }]));
    await t.drain();
    const [analysis] = await get<Analysis[]>(`/api/v1/repos/${other}/analyses`);
    expect((await remove(mine, analysis!.id)).statusCode).toBe(404);
    expect(await get<Analysis[]>(`/api/v1/repos/${other}/analyses`)).toHaveLength(1);
    expect((await get<{ findings: { open: number } }>(`/api/v1/repos/${other}/status`)).findings.open).toBe(1);
  });

  it('lets a later upload of the same tool start the analysis afresh', async () => {
    const repo = await newRepo('again');
    await upload(repo, sarifLog([{ rule: 'a', file: 'x.js' }]));
    await t.drain();
    const [first] = await get<Analysis[]>(`/api/v1/repos/${repo}/analyses`);
    expect((await remove(repo, first!.id)).statusCode).toBe(204);
    await upload(repo, sarifLog([{ rule: 'a', file: 'x.js' }, { rule: 'b', file: 'y.js' }]));
    await t.drain();
    const uploads = await get<{ counts: { new: number; fixed: number } }[]>(`/api/v1/repos/${repo}/uploads`);
    expect(uploads[0]!.counts).toMatchObject({ new: 2, fixed: 0 });
    expect((await get<{ findings: { open: number } }>(`/api/v1/repos/${repo}/status`)).findings.open).toBe(2);
  });
});
