import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMaintenance } from '../../src/maintenance.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';
import { orgClient, type Problem } from '../support/orgs.js';

interface Finding { id: string; rule_id: string; state: string; severity: string; fingerprint: string }
interface Status { ref: string; ref_kind: string; base_ref: string | null; state: string; findings: Record<string, number>; components: number; analyses: unknown[] }
interface Upload { id: string; status: string; ref: string; ref_kind: string; base_ref: string | null; vs_base: { new: number; fixed: number } | null; counts: Record<string, number> }

const SQLI: SarifResultSpec = { rule: 'sql-injection', file: 'src/db.js', level: 'error' };
const XSS: SarifResultSpec = { rule: 'xss', file: 'src/view.js', securitySeverity: 9.5 };
const WEAK: SarifResultSpec = { rule: 'weak-hash', file: 'src/hash.js', level: 'note' };
const TRAVERSAL: SarifResultSpec = { rule: 'path-traversal', file: 'src/files.js', level: 'error' };
const EVAL: SarifResultSpec = { rule: 'eval', file: 'src/run.js', level: 'warning' };

describe.each(DB_KINDS)('branches and pull requests on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let ownerId: string;
  let orgId: string;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const owner = await t.user('owner');
    cookie = owner.cookie;
    ownerId = owner.user.id;
    orgId = (await orgClient(t).createOrg(cookie, 'refs-org')).id;
    key = await t.apiKey(cookie, { scopes: ['upload'] });
  });
  afterAll(() => t.close());

  let repos = 0;
  const newRepo = async (body: Record<string, unknown> = {}) => (await orgClient(t).createRepo(cookie, orgId, { name: `repo-${++repos}`, ...body })).id;
  const get = (url: string) => t.request({ url, headers: { cookie } });
  const json = async <T>(url: string): Promise<T> => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<T>();
  };
  /** Uploads a SARIF log with the given context, processes it and returns the upload. */
  async function upload(repoId: string, results: SarifResultSpec[], context: Record<string, string> = {}): Promise<Upload> {
    const query = new URLSearchParams(context).toString();
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repoId}/upload${query ? `?${query}` : ''}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sarif+json' }, payload: sarifLog(results),
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return json<Upload>(`/api/v1/uploads/${res.json<Upload>().id}`);
  }
  const findings = async (repoId: string, query = '') => {
    const res = await get(`/api/v1/repos/${repoId}/findings?per_page=100${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return { total: Number(res.headers['x-total-count']), rules: res.json<Finding[]>().map((f) => f.rule_id).sort(), items: res.json<Finding[]>() };
  };

  it('keeps a pull request off the default branch and judges it against its base', async () => {
    const repo = await newRepo();
    const main = await upload(repo, [SQLI, XSS, WEAK]);
    expect(main).toMatchObject({ ref: 'main', ref_kind: 'branch', base_ref: null, vs_base: null, counts: { new: 3 } });
    const mainBefore = await findings(repo);

    // The pull request fixes xss and brings path-traversal.
    const pr = await upload(repo, [SQLI, WEAK, TRAVERSAL], { ref: 'refs/pull/42/merge' });
    expect(pr).toMatchObject({ status: 'complete', ref: 'pr/42', ref_kind: 'pull_request', base_ref: 'main', vs_base: { new: 1, fixed: 1 } });
    expect(pr.counts).toMatchObject({ new: 3, fixed: 0, unchanged: 0 });

    const mainStatus = await json<Status>(`/api/v1/repos/${repo}/status`);
    expect(mainStatus).toMatchObject({ ref: 'main', ref_kind: 'branch', state: 'complete', findings: { open: 3, critical: 1, high: 1, low: 1 } });
    expect(await findings(repo)).toEqual(mainBefore);
    expect((await findings(repo, '&state=fixed')).total).toBe(0);
    expect((await json<{ scan: { findings: { open: number } } }>(`/api/v1/repos/${repo}`)).scan.findings.open).toBe(3);

    const added = await findings(repo, '&ref=pr/42&vs_base=new');
    expect(added.rules).toEqual(['path-traversal']);
    expect(added.total).toBe(1);
    const fixed = await findings(repo, `&ref=${encodeURIComponent('refs/pull/42/head')}&vs_base=fixed`);
    expect(fixed.rules).toEqual(['xss']);
    expect(fixed.items[0]!.id).toBe(mainBefore.items.find((f) => f.rule_id === 'xss')!.id);

    // The second push tracks against the first: weak-hash fixed within the pull request.
    const second = await upload(repo, [SQLI, TRAVERSAL], { ref: 'refs/pull/42/head' });
    expect(second).toMatchObject({ ref: 'pr/42', counts: { new: 0, fixed: 1, reopened: 0, unchanged: 2 }, vs_base: { new: 1, fixed: 2 } });
    expect((await findings(repo, '&ref=pr/42')).rules).toEqual(['path-traversal', 'sql-injection']);
    expect((await findings(repo, '&ref=pr/42&state=fixed')).rules).toEqual(['weak-hash']);
    expect((await findings(repo, '&ref=pr/42&vs_base=fixed')).rules).toEqual(['weak-hash', 'xss']);
    expect(await json<Status>(`/api/v1/repos/${repo}/status?ref=pr/42`))
      .toMatchObject({ ref: 'pr/42', ref_kind: 'pull_request', base_ref: 'main', state: 'complete', findings: { open: 2 } });
    expect(await findings(repo)).toEqual(mainBefore);
  });

  it('keeps separate results per branch; a ref status agrees with its findings list', async () => {
    const repo = await newRepo();
    await upload(repo, [SQLI]);
    await upload(repo, [SQLI, XSS, EVAL], { ref: 'refs/heads/feature/a' });
    await upload(repo, [WEAK], { ref: 'feature/b' });
    // The same branch spelled bare tracks against its earlier upload.
    expect(await upload(repo, [SQLI, XSS], { ref: 'feature/a' })).toMatchObject({ ref: 'feature/a', counts: { new: 0, fixed: 1, unchanged: 2 } });

    for (const [ref, open] of [['main', 1], ['feature/a', 2], ['feature/b', 1]] as const) {
      const status = await json<Status>(`/api/v1/repos/${repo}/status?ref=${encodeURIComponent(ref)}`);
      const list = await findings(repo, `&ref=${encodeURIComponent(ref)}`);
      expect(status.findings.open).toBe(open);
      expect(list.total).toBe(open);
      expect(list.items).toHaveLength(open);
      for (const severity of ['critical', 'high', 'medium', 'low', 'info']) {
        expect((await findings(repo, `&ref=${encodeURIComponent(ref)}&severity=${severity}`)).total, `${ref} ${severity}`).toBe(status.findings[severity]);
      }
    }
    expect((await findings(repo, '&ref=feature/a&state=fixed')).rules).toEqual(['eval']);
    expect((await json<Status>(`/api/v1/repos/${repo}/status`)).findings.open).toBe(1);
  });

  it('lists refs: the default branch first, then branches, pull requests and tags, with their counts', async () => {
    const repo = await newRepo({ default_branch: 'develop' });
    await upload(repo, [SQLI, XSS], { ref: 'refs/pull/7/merge' });
    await upload(repo, [SQLI], { ref: 'refs/tags/v1.0' });
    await upload(repo, [SQLI, XSS, WEAK], { ref: 'zeta' });
    await upload(repo, [WEAK]);
    await upload(repo, [EVAL], { ref: 'refs/heads/pr/9' });
    const res = await get(`/api/v1/repos/${repo}/refs`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('5');
    const refs = res.json<{ ref: string; kind: string; name: string; default: boolean; base_ref: string | null; findings: { open: number } }[]>();
    expect(refs.map((r) => [r.ref, r.kind, r.default, r.findings.open])).toEqual([
      ['develop', 'branch', true, 1],
      ['refs/heads/pr/9', 'branch', false, 1],
      ['zeta', 'branch', false, 3],
      ['pr/7', 'pull_request', false, 2],
      ['refs/tags/v1.0', 'tag', false, 1],
    ]);
    expect(refs.find((r) => r.kind === 'pull_request')!.base_ref).toBe('develop');
    // Each listed ref reads back through ?ref= as itself.
    for (const ref of refs) {
      expect((await json<Status>(`/api/v1/repos/${repo}/status?ref=${encodeURIComponent(ref.ref)}`)).findings.open).toBe(ref.findings.open);
    }
    const uploads = async (ref: string) => (await json<Upload[]>(`/api/v1/repos/${repo}/uploads?ref=${encodeURIComponent(ref)}`)).map((u) => u.ref);
    expect(await uploads('develop')).toEqual(['develop']);
    expect(await uploads('refs/pull/7/head')).toEqual(['pr/7']);
    expect(await uploads('main')).toEqual([]);
    expect((await json<Upload[]>(`/api/v1/repos/${repo}/uploads`)).map((u) => u.ref)).toEqual(['refs/heads/pr/9', 'develop', 'zeta', 'refs/tags/v1.0', 'pr/7']);
    // The upload without a ref went to the default branch, which the repository's summary shows.
    expect((await json<{ scan: { findings: { open: number } } }>(`/api/v1/repos/${repo}`)).scan.findings.open).toBe(1);
  });

  it('compares a pull request with the base_ref it names, else the default branch', async () => {
    const repo = await newRepo();
    await upload(repo, [SQLI]);
    await upload(repo, [SQLI, XSS], { ref: 'release/1.x' });
    const onRelease = await upload(repo, [SQLI, XSS, WEAK], { ref: 'refs/pull/3/merge', base_ref: 'refs/heads/release/1.x' });
    expect(onRelease).toMatchObject({ base_ref: 'release/1.x', vs_base: { new: 1, fixed: 0 } });
    expect((await findings(repo, '&ref=pr/3&vs_base=new')).rules).toEqual(['weak-hash']);
    const onMain = await upload(repo, [SQLI, XSS, WEAK], { ref: 'refs/merge-requests/4/head', base_ref: '' });
    expect(onMain).toMatchObject({ ref: 'pr/4', base_ref: 'main', vs_base: { new: 2, fixed: 0 } });
    // The same context as multipart form fields.
    const boundary = 'refs-boundary';
    const form = [
      ['ref', 'refs/pull/6/head'], ['base_ref', 'release/1.x'],
    ].map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('')
      + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.sarif"\r\nContent-Type: application/sarif+json\r\n\r\n`
      + `${sarifLog([SQLI, EVAL])}\r\n--${boundary}--\r\n`;
    const posted = await t.request({
      method: 'POST', url: `/api/v1/repos/${repo}/upload`,
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: form,
    });
    expect(posted.statusCode, posted.body).toBe(202);
    await t.drain();
    expect(await json<Upload>(`/api/v1/uploads/${posted.json<Upload>().id}`)).toMatchObject({ ref: 'pr/6', base_ref: 'release/1.x', vs_base: { new: 1, fixed: 1 } });
    // A finding fixed on the base is absent there: the pull request that brings it back adds it.
    await upload(repo, [XSS], { ref: 'release/1.x' });
    expect(await upload(repo, [SQLI, XSS], { ref: 'pr/8', base_ref: 'release/1.x' })).toMatchObject({ vs_base: { new: 1, fixed: 0 } });
    expect((await findings(repo, '&ref=pr/8&vs_base=new')).rules).toEqual(['sql-injection']);
    // A base without results: everything the pull request has is new.
    const onNothing = await upload(repo, [XSS], { ref: 'pr/5', base_ref: 'never-scanned' });
    expect(onNothing).toMatchObject({ base_ref: 'never-scanned', vs_base: { new: 1, fixed: 0 } });
    expect((await findings(repo, '&ref=pr/5&vs_base=new')).rules).toEqual(['xss']);
    expect((await findings(repo, '&ref=pr/5&vs_base=fixed')).total).toBe(0);
  });

  it('lists a ref\'s components', async () => {
    const repo = await newRepo();
    const bom = (names: string[]) => JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.5', version: 1,
      metadata: { tools: { components: [{ type: 'application', name: 'syft', version: '1.0.0' }] } },
      components: names.map((name) => ({ type: 'library', name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` })),
    });
    for (const [ref, names] of [[undefined, ['left-pad']], ['feature/deps', ['left-pad', 'lodash']]] as const) {
      const res = await t.request({
        method: 'POST', url: `/api/v1/repos/${repo}/upload${ref ? `?ref=${ref}` : ''}`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/vnd.cyclonedx+json' }, payload: bom([...names]),
      });
      expect(res.statusCode, res.body).toBe(202);
    }
    await t.drain();
    const names = async (query: string) => (await json<{ name: string }[]>(`/api/v1/repos/${repo}/components${query}`)).map((c) => c.name);
    expect(await names('')).toEqual(['left-pad']);
    expect(await names('?ref=feature/deps')).toEqual(['left-pad', 'lodash']);
    expect((await json<Status>(`/api/v1/repos/${repo}/status?ref=feature/deps`)).components).toBe(2);
  });

  it('refuses refs it cannot read, and answers refs without results with 404', async () => {
    const repo = await newRepo();
    await upload(repo, [SQLI]);
    await upload(repo, [SQLI], { ref: 'feature/x' });
    const problem = async (url: string, status: number) => {
      const res = await get(url);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      return res.json<Problem>();
    };
    expect((await problem(`/api/v1/repos/${repo}/status?ref=refs/remotes/origin/x`, 400)).errors).toContainEqual(expect.objectContaining({ path: '/ref' }));
    await problem(`/api/v1/repos/${repo}/findings?ref=a..b`, 400);
    await problem(`/api/v1/repos/${repo}/components?ref=${encodeURIComponent('bad ref')}`, 400);
    await problem(`/api/v1/repos/${repo}/uploads?ref=refs/x`, 400);
    await problem(`/api/v1/repos/${repo}/status?ref=feature/none`, 404);
    await problem(`/api/v1/repos/${repo}/findings?ref=pr/99`, 404);
    expect((await problem(`/api/v1/repos/${repo}/findings?ref=feature/x&vs_base=new`, 400)).errors).toContainEqual(expect.objectContaining({ path: '/vs_base' }));
    await problem(`/api/v1/repos/${repo}/findings?vs_base=new`, 400);
    await problem(`/api/v1/repos/${repo}/findings?ref=pr/1&vs_base=sideways`, 400);
    // The default branch without results reads as empty, not missing.
    const fresh = await newRepo();
    expect(await json<Status>(`/api/v1/repos/${fresh}/status`)).toMatchObject({ ref: 'main', state: 'never_scanned', findings: { open: 0 } });
    expect((await findings(fresh, '&ref=main')).total).toBe(0);

    const post = (query: string) => t.request({
      method: 'POST', url: `/api/v1/repos/${repo}/upload?${query}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sarif+json' }, payload: sarifLog([SQLI]),
    });
    for (const query of ['ref=refs/notes/x', 'ref=refs/pull/x/merge', 'ref=pr/1&base_ref=refs/tags/v1', 'ref=pr/1&base_ref=pr/2']) {
      const res = await post(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(await t.drain()).toBe(0);
  });

  it('reads the default branch with its analyses however default_branch spells it, named or not', async () => {
    for (const spelled of ['develop', 'refs/heads/develop']) {
      const repo = await newRepo({ default_branch: spelled });
      await upload(repo, [SQLI, XSS]);
      await upload(repo, [WEAK], { ref: 'feature/y' });
      for (const query of ['', '?ref=develop', '?ref=refs/heads/develop']) {
        const status = await json<Status>(`/api/v1/repos/${repo}/status${query}`);
        expect(status, `${spelled} ${query}`).toMatchObject({ ref: 'develop', ref_kind: 'branch', base_ref: null, state: 'complete', findings: { open: 2 } });
        expect(status.analyses, `${spelled} ${query}`).toHaveLength(1);
      }
      const feature = await json<Status & { last_upload_at: string; last_completed_at: string; analyses: { completed_at: string }[] }>(`/api/v1/repos/${repo}/status?ref=feature/y`);
      expect(feature).toMatchObject({ ref: 'feature/y', state: 'complete', findings: { open: 1 }, analyses: [{ open_findings: 1 }] });
      // Times read the same on both databases, whichever way the query brought them.
      const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
      for (const time of [feature.last_upload_at, feature.last_completed_at, feature.analyses[0]!.completed_at]) expect(time).toMatch(iso);
    }
  });

  it('answers 404 before 400 to a caller who may not see the repository', async () => {
    const repo = await newRepo();
    const stranger = await t.user('stranger');
    const res = await t.request({ url: `/api/v1/repos/${repo}/status?ref=refs/remotes/origin/x`, headers: { cookie: stranger.cookie } });
    expect(res.statusCode, res.body).toBe(404);
  });

  it('housekeeping removes a feature branch idle past SERVICE_REF_RETENTION_DAYS, never the default branch', async () => {
    const repo = await newRepo();
    await upload(repo, [SQLI]);
    await upload(repo, [SQLI, XSS], { ref: 'feature/old' });
    const refNames = async () => (await json<{ ref: string }[]>(`/api/v1/repos/${repo}/refs`)).map((r) => r.ref);
    expect(await refNames()).toEqual(['main', 'feature/old']);
    // Only Date is set; timers, and so the database drivers, run as usual.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 91 * 86_400_000);
      await runMaintenance(t.app.services, t.app.log);
    } finally {
      vi.useRealTimers();
    }
    // Housekeeping also ended the sessions that had expired by then, this test's among them.
    cookie = await t.cookieFor(ownerId);
    expect(await refNames()).toEqual(['main']);
    await expect(get(`/api/v1/repos/${repo}/status?ref=feature/old`)).resolves.toMatchObject({ statusCode: 404 });
    expect((await findings(repo)).rules).toEqual(['sql-injection']);
  });
});
