import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { CORPUS, EXPECTED } from '../support/corpus.js';

describe.each(DB_KINDS)('every corpus file through the upload API on %s', (kind) => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('ci'));
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'corpus' } })).json().id;
    key = await t.apiKey(cookie, { scopes: ['upload'] });
  });
  afterAll(() => t.close());

  it.each(Object.entries(EXPECTED))('%s completes with its expected counts', async (file, expected) => {
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie }, payload: { name: path.basename(file) } })).json().id;
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repo}/upload`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      payload: fs.readFileSync(path.join(CORPUS, file)),
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().format).toBe(expected.format);
    await t.drain();
    const upload = (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie } })).json();
    const stored = expected.findings - (expected.repeats ?? 0);
    expect(upload).toMatchObject({ status: 'complete', tools: expected.tools, counts: { findings: stored, components: expected.components, new: stored } });
    const status = (await t.request({ url: `/api/v1/repos/${repo}/status`, headers: { cookie } })).json();
    expect(status).toMatchObject({ state: 'complete', components: expected.components });
    expect(status.findings.open).toBe(stored);
    const findings = await t.request({ url: `/api/v1/repos/${repo}/findings?per_page=1`, headers: { cookie } });
    expect(Number(findings.headers['x-total-count'])).toBe(status.findings.open);
    // KICS reports its one finding twice, word for word: one finding, reported twice.
    if (file.includes('kics')) expect(findings.json()[0]).toMatchObject({ kind: 'fail', tool: 'KICS', occurrences: 2 });
  });
});
