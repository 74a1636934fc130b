import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { CORPUS } from '../support/corpus.js';

const corpus = (file: string) => fs.readFileSync(path.join(CORPUS, file));

/** A gzip stream that inflates to `bytes` zeros, made without holding them in memory. */
async function gzipBomb(bytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < bytes; written += zeros.length) {
    if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(chunks);
}

describe.each(DB_KINDS)('uploads on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let repoId: string;
  let orgId: string;
  let uploadKey: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { SERVICE_MAX_UPLOAD_BYTES: String(4 * 1024 * 1024) });
    owner = await t.user('owner');
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'api' } })).json().id;
    uploadKey = await t.apiKey(owner.cookie, { scopes: ['upload'] });
  });
  afterAll(() => t.close());

  const post = (body: Buffer | string, headers: Record<string, string> = {}, query = '', repo = repoId) =>
    t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload${query}`, headers: { authorization: `Bearer ${uploadKey}`, 'content-type': 'application/octet-stream', ...headers }, payload: body });
  const upload = async (id: string) => (await t.request({ url: `/api/v1/uploads/${id}`, headers: { cookie: owner.cookie } })).json();

  it('accepts a SARIF file with 202, stores it, and processes it to complete', async () => {
    const body = corpus('sarif/trivy-image-alpine-310.sarif');
    const res = await post(body, { 'content-type': 'application/sarif+json' }, '?category=image&commit_sha=ABC1234&ref=main');
    expect(res.statusCode).toBe(202);
    const accepted = res.json();
    expect(res.headers.location).toBe(`/api/v1/uploads/${accepted.id}`);
    expect(accepted).toMatchObject({ repository_id: repoId, format: 'sarif', status: 'pending', size_bytes: body.length, category: 'image', commit_sha: 'abc1234', ref: 'main' });
    expect(accepted.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect((await t.request({ url: `/api/v1/repos/${repoId}/status`, headers: { cookie: owner.cookie } })).json().state).toBe('pending');

    expect(await t.drain()).toBe(1);
    const done = await upload(accepted.id);
    expect(done).toMatchObject({ status: 'complete', tools: ['Trivy'], counts: { new: 8, findings: 8, fixed: 0 } });
    const status = (await t.request({ url: `/api/v1/repos/${repoId}/status`, headers: { cookie: owner.cookie } })).json();
    expect(status).toMatchObject({ repository_id: repoId, state: 'complete', findings: { open: 8 } });
    expect(status.analyses).toEqual([expect.objectContaining({ tool: 'Trivy', category: 'image', format: 'sarif', last_upload_id: accepted.id, status: 'complete', open_findings: 8 })]);
    // Every repository in a list carries the same open counts, so a dashboard needs no call per repository
    // (the dismissed count is the status's own).
    const { dismissed, ...open } = status.findings;
    expect(dismissed).toBe(0);
    const listed = (await t.request({ url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie } })).json();
    expect(listed.find((r: { id: string }) => r.id === repoId).scan).toEqual({
      state: 'complete', last_upload_at: status.last_upload_at, last_completed_at: status.last_completed_at,
      findings: open, components: 0,
    });
  });

  it('accepts gzip (by header or by content) and multipart forms', async () => {
    const sbom = corpus('cyclonedx/trivy-conda-1.6.cdx.json');
    const byHeader = await post(gzipSync(sbom), { 'content-encoding': 'gzip', 'content-type': 'application/vnd.cyclonedx+json' });
    expect(byHeader.statusCode).toBe(202);
    expect(byHeader.json().format).toBe('cyclonedx');
    const byContent = await post(gzipSync(corpus('spdx/trivy-conda-2.2.spdx.json')));
    expect(byContent.json().format).toBe('spdx');
    // Two members, as `cat a.gz b.gz` makes: one document.
    const halves = [sbom.subarray(0, 1000), sbom.subarray(1000)].map((half) => gzipSync(half));
    const twoMembers = await post(Buffer.concat(halves), { 'content-encoding': 'gzip' });
    expect(twoMembers.json().sha256).toBe(createHash('sha256').update(sbom).digest('hex'));
    const truncated = await post(gzipSync(sbom).subarray(0, 200), { 'content-encoding': 'gzip' });
    expect(truncated.statusCode).toBe(400);
    expect(truncated.headers['content-type']).toContain('application/problem+json');
    expect(truncated.json().detail).toMatch(/not valid gzip/);

    const form = new FormData();
    form.set('category', 'deps');
    form.set('file', new Blob([corpus('findings/semgrep-1.30.0.json')]), 'semgrep.json');
    const request = new Request('http://x', { method: 'POST', body: form });
    const multipart = await post(Buffer.from(await request.arrayBuffer()), { 'content-type': request.headers.get('content-type')! });
    expect(multipart.statusCode).toBe(202);
    expect(multipart.json()).toMatchObject({ format: 'findings', category: 'deps', sha256: createHash('sha256').update(corpus('findings/semgrep-1.30.0.json')).digest('hex') });
    await t.drain();
    expect((await upload(multipart.json().id)).status).toBe('complete');
    const components = await t.request({ url: `/api/v1/repos/${repoId}/components?q=conda`, headers: { cookie: owner.cookie } });
    expect(components.statusCode).toBe(200);
    // A gzip is kept as it arrived, a small document compressed on PostgreSQL only; a worker that did not receive it (here: drain) reads the document from it.
    const kept = async (id: string) => t.db.kysely.selectFrom('upload_contents').select(['content', 'encoding']).where('upload_id', '=', id).executeTakeFirstOrThrow();
    expect(await kept(byHeader.json().id)).toEqual({ content: gzipSync(sbom), encoding: 'gzip' });
    const plain = await kept(multipart.json().id);
    expect(plain.encoding).toBe(kind === 'postgres' ? 'gzip' : null);
    expect(plain.encoding === 'gzip' ? gunzipSync(plain.content) : plain.content).toEqual(corpus('findings/semgrep-1.30.0.json'));
    for (const id of [byHeader.json().id, byContent.json().id]) {
      expect(await upload(id)).toMatchObject({ status: 'complete' });
      expect((await upload(id)).counts.components).toBeGreaterThan(0);
    }
  });

  it('keeps a document of 1 MiB or more compressed, hashed as sent, and processes it', async () => {
    const results = Array.from({ length: 6000 }, (_, i) => ({ rule: `R${i % 40}`, message: `Finding ${i} ${'detail '.repeat(20)}`, file: `src/file${i}.ts`, line: i + 1 }));
    const body = Buffer.from(sarifLog(results));
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await post(body, { 'content-type': 'application/sarif+json' }, '?category=large');
    expect(res.statusCode).toBe(202);
    expect(res.json().sha256).toBe(createHash('sha256').update(body).digest('hex'));
    const kept = await t.db.kysely.selectFrom('upload_contents').select(['content', 'encoding']).where('upload_id', '=', res.json().id).executeTakeFirstOrThrow();
    expect(kept.encoding).toBe('gzip');
    expect(gunzipSync(kept.content)).toEqual(body);
    await t.drain();
    expect(await upload(res.json().id)).toMatchObject({ status: 'complete', counts: { new: 6000 } });
  });

  it('rejects what can be known to be wrong before storing it', async () => {
    const cases: [Buffer | string, number, RegExp][] = [
      ['', 400, /empty/i],
      ['   \n  ', 400, /empty/i],
      [Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj'), 415, /PDF/],
      ['hello world, not a scan', 415, /not JSON, XML/i],
    ];
    for (const [body, status, message] of cases) {
      const res = await post(body);
      expect(res.statusCode, String(body).slice(0, 20)).toBe(status);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toMatch(message);
    }
    expect((await post('{}', {}, '?format=pdf')).statusCode).toBe(400);
  });

  it('treats empty context values as absent, and takes a commit_sha of 7 to 64 hex digits only', async () => {
    const sarif = sarifLog([{ rule: 'r', file: 'a.js' }]);
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'context' } })).json().id;
    const postHere = (body: Buffer | string, headers: Record<string, string> = {}, query = '') => post(body, headers, query, repo);
    // What `commit_sha=$GIT_COMMIT&ref=$GIT_BRANCH` sends when the variables are unset.
    const empty = await postHere(sarif, {}, '?category=&commit_sha=&ref=');
    expect(empty.statusCode).toBe(202);
    // An upload that names no branch belongs to the repository's default branch.
    expect(empty.json()).toMatchObject({ category: '', commit_sha: null, ref: 'main' });
    const form = new FormData();
    form.set('commit_sha', '');
    form.set('ref', '');
    form.set('file', new Blob([sarif]), 'results.sarif');
    const request = new Request('http://x', { method: 'POST', body: form });
    const multipart = await postHere(Buffer.from(await request.arrayBuffer()), { 'content-type': request.headers.get('content-type')! });
    expect(multipart.json()).toMatchObject({ commit_sha: null, ref: 'main' });

    const full = 'a'.repeat(40);
    expect((await postHere(sarif, {}, `?commit_sha=${full}`)).json().commit_sha).toBe(full);
    expect((await postHere(sarif, {}, `?commit_sha=${'0'.repeat(64)}`)).statusCode).toBe(202);
    for (const bad of ['not-a-sha', 'abc123', 'g'.repeat(40), '0'.repeat(65)]) {
      const res = await postHere(sarif, {}, `?commit_sha=${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(['/query/commit_sha']);
    }
    const badForm = new FormData();
    badForm.set('commit_sha', 'not-a-sha');
    badForm.set('file', new Blob([sarif]), 'results.sarif');
    const badRequest = new Request('http://x', { method: 'POST', body: badForm });
    const badMultipart = await postHere(Buffer.from(await badRequest.arrayBuffer()), { 'content-type': badRequest.headers.get('content-type')! });
    expect(badMultipart.statusCode).toBe(400);
    expect(badMultipart.json().errors.map((e: { path: string }) => e.path)).toEqual(['/fields/commit_sha']);
    await t.drain();
  });

  it('answers 413 with the limit over SERVICE_MAX_UPLOAD_BYTES, before or after inflating', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 'a');
    const raw = await post(big);
    expect(raw.statusCode).toBe(413);
    expect(raw.json().detail).toContain('4 MiB');
    const bomb = await gzipBomb(1024 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(4 * 1024 * 1024);
    const inflated = await post(bomb, { 'content-encoding': 'gzip' });
    expect(inflated.statusCode).toBe(413);
    expect(inflated.json().detail).toMatch(/decompressed/);
  });

  it('fails broken documents with a readable reason and keeps earlier results', async () => {
    const before = (await t.request({ url: `/api/v1/repos/${repoId}/status`, headers: { cookie: owner.cookie } })).json().findings;
    const bad = [
      '{"version": "2.1.0", "runs": [', // invalid JSON
      JSON.stringify({ version: '1.0.0', $schema: 'sarif-1.0.0', runs: [] }),
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"><!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]><bom xmlns="http://cyclonedx.org/schema/bom/1.4" version="1"><components><component type="library"><name>&lol9;</name></component></components></bom>`,
    ];
    for (const body of bad) {
      const res = await post(body);
      if (res.statusCode !== 202) {
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
        continue;
      }
      await t.drain();
      const failed = await upload(res.json().id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toEqual(expect.any(String));
      expect(failed.error.length).toBeGreaterThan(10);
    }
    const after = (await t.request({ url: `/api/v1/repos/${repoId}/status`, headers: { cookie: owner.cookie } })).json();
    expect(after.findings).toEqual(before);
    expect(after.state).toBe('failed');
    expect((await t.request({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('lists findings with filters, components, and uploads newest first', async () => {
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'lists' } })).json().id;
    await post(sarifLog([
      { rule: 'a', file: 'x.js', level: 'error' }, { rule: 'b', file: 'y.js', level: 'warning' }, { rule: 'c', file: 'z.js', securitySeverity: 9.8 },
    ]), {}, '', repo);
    await post(corpus('cyclonedx/grype-0.41.0-log4j-1.4.cdx.xml'), {}, '', repo);
    await t.drain();
    const get = (url: string) => t.request({ url, headers: { cookie: owner.cookie } });
    const all = await get(`/api/v1/repos/${repo}/findings?per_page=100`);
    expect(Number(all.headers['x-total-count'])).toBe(all.json().length);
    expect(all.json()[0].severity).toBe('critical');
    const high = (await get(`/api/v1/repos/${repo}/findings?severity=high&tool=TestScanner`)).json();
    expect(high.map((f: { rule_id: string }) => f.rule_id)).toEqual(['a']);
    expect((await get(`/api/v1/repos/${repo}/findings?q=Y.JS`)).json().map((f: { rule_id: string }) => f.rule_id)).toEqual(['b']);
    expect((await get(`/api/v1/repos/${repo}/findings?state=fixed`)).json()).toEqual([]);
    expect((await get(`/api/v1/repos/${repo}/findings?severity=urgent`)).statusCode).toBe(400);
    const components = await get(`/api/v1/repos/${repo}/components`);
    expect(components.json()).toEqual([expect.objectContaining({ name: 'log4j-core', version: '2.13.2', purl: expect.stringContaining('pkg:maven/') })]);
    const uploads = (await get(`/api/v1/repos/${repo}/uploads`)).json();
    expect(uploads.map((u: { format: string }) => u.format)).toEqual(['cyclonedx', 'sarif']);
  });

  it('lets only members upload, and only with an upload or write key', async () => {
    const stranger = await t.user('stranger');
    const strangerKey = await t.apiKey(stranger.cookie);
    const readKey = await t.apiKey(owner.cookie, { scopes: ['read'] });
    const otherOrg = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'elsewhere' } })).json().id;
    const narrowKey = await t.apiKey(owner.cookie, { org_ids: [otherOrg] });
    const body = sarifLog([{ rule: 'a', file: 'x' }]);
    expect((await post(body, { authorization: `Bearer ${strangerKey}` })).statusCode).toBe(404);
    expect((await post(body, { authorization: `Bearer ${readKey}` })).statusCode).toBe(403);
    expect((await post(body, { authorization: `Bearer ${narrowKey}` })).statusCode).toBe(404);
    expect((await post(body, { authorization: '' })).statusCode).toBe(401);
    expect((await post(body, { authorization: `Bearer ${uploadKey}` }, '', 'no-such-repo')).statusCode).toBe(404);
    const viaCookie = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie: owner.cookie }, payload: body });
    expect(viaCookie.statusCode).toBe(202);
    expect((await t.request({ url: `/api/v1/uploads/${viaCookie.json().id}`, headers: { cookie: stranger.cookie } })).statusCode).toBe(404);
  });
});
