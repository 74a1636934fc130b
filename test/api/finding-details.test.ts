import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';

interface Finding { rule_id: string; start_line: number | null; commit_sha: string | null; occurrences: number }

const COMMIT = 'B1E6CBA6A4F6E1C7A3C1D1F6E3B8D2A4C5E6F7A8';

/** Issue 12's leftovers: the commit a report names per finding, and a result the tool repeats shown once with its count. */
describe.each(DB_KINDS)('finding details on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let repoId: string;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('owner'));
    const api = orgClient(t);
    const org = await api.createOrg(cookie, 'details');
    repoId = (await api.createRepo(cookie, org.id, { name: 'app' })).id;
    key = await t.apiKey(cookie, { scopes: ['upload'] });
  });
  afterAll(() => t.close());

  const upload = async (body: string, category: string) => {
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repoId}/upload?category=${category}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: body,
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
  };
  const findings = async (tool: string) => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?tool=${tool}&per_page=100`, headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Finding[]>().sort((a, b) => (a.start_line ?? 0) - (b.start_line ?? 0));
  };

  it('keeps the commit Gitleaks names for each leak, lowercased, and none for a directory scan', async () => {
    const leak = (line: number, commit: string) => ({
      RuleID: 'aws-access-token', Description: 'AWS key', File: 'config/settings.py', StartLine: line, EndLine: line,
      Secret: 'AKIAIOSFODNN7EXAMPLE', Commit: commit, Fingerprint: `${commit}:config/settings.py:aws-access-token:${line}`,
    });
    await upload(JSON.stringify([leak(12, COMMIT), leak(30, ''), leak(40, 'not-a-commit')]), 'secrets');
    expect((await findings('Gitleaks')).map((f) => [f.start_line, f.commit_sha])).toEqual([[12, COMMIT.toLowerCase()], [30, null], [40, null]]);
  });

  it('lists a result the tool repeats once, with how many times it was reported', async () => {
    const same = { rule: 'eval', file: 'src/a.js', line: 4, level: 'error' as const };
    await upload(sarifLog([same, same, { ...same, line: 8 }], 'Repeater'), 'repeats');
    expect((await findings('Repeater')).map((f) => [f.start_line, f.occurrences, f.commit_sha])).toEqual([[4, 2, null], [8, 1, null]]);
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?tool=Repeater`, headers: { cookie } });
    expect(res.headers['x-total-count']).toBe('2');
  });
});
