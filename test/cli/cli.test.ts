import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../support/db.js';
import type { TestApp } from '../support/app.js';
import { sarifLog } from '../support/sarif.js';
import { listeningApp, runCli, writeTemp } from './support.js';

const MEDIUM = sarifLog([{ rule: 'M1', file: 'src/a.ts', securitySeverity: 5 }]);
const WITH_CRITICAL = sarifLog([{ rule: 'M1', file: 'src/a.ts', securitySeverity: 5 }, { rule: 'C1', file: 'src/b.ts', securitySeverity: 9.8 }]);

describe.each(DB_KINDS)('the scanyard CLI against a listening server on %s', (kind) => {
  let t: TestApp & { url: string };
  let owner: { cookie: string };
  let orgId: string;
  let uploadKey: string;
  let writeKey: string;
  let repos = 0;

  beforeAll(async () => {
    t = await listeningApp(kind);
    owner = await t.user('owner');
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    uploadKey = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    writeKey = await t.apiKey(owner.cookie, { scopes: ['write'] });
  });
  afterAll(() => t.close());

  const newRepo = async (policy?: Record<string, unknown>) => {
    const name = `service-${++repos}`;
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name } })).json();
    if (policy) await t.request({ method: 'PUT', url: `/api/v1/repos/${repo.id}/policy`, headers: { cookie: owner.cookie }, payload: policy });
    return { id: repo.id as string, slug: `acme/${name}` };
  };
  const env = (key = uploadKey) => ({ SCANYARD_URL: t.url, SCANYARD_KEY: key });
  const uploads = async (repoId: string) => (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: { cookie: owner.cookie } })).json();

  it('exits 0 on a clean upload, printing what it changed and the gate', async () => {
    const repo = await newRepo({ fail_on_new: 'high' });
    const run = await runCli(['upload', writeTemp('results.sarif', MEDIUM), '--repo', repo.slug, '--category', 'backend', '--commit', 'abc1234', '--ref', 'refs/heads/main', '--wait', '--fail-on-gate'], env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('results.sarif: 1 finding, 0 components');
    expect(run.stdout).toContain('new: 1 medium; reopened: none; fixed: none');
    expect(run.stdout).toContain('gate: pass');
    const [stored] = await uploads(repo.id);
    expect(stored).toMatchObject({ status: 'complete', category: 'backend', commit_sha: 'abc1234', ref: 'main' });
  });

  it('exits 1 when a new critical arrives under fail_on_new "high", naming it', async () => {
    const repo = await newRepo({ fail_on_new: 'high' });
    expect((await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug, '--fail-on-gate'], env())).code).toBe(0);
    const run = await runCli(['upload', writeTemp('r.sarif', WITH_CRITICAL), '--repo', repo.slug, '--fail-on-gate'], env());
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('new: 1 critical');
    expect(run.stdout).toContain('[fail_on_new]');
    expect(run.stdout).toContain('C1 at src/b.ts:1');
    expect(run.stderr.trim().split('\n')).toEqual([`scanyard: the gate failed for 1 of 1 upload to ${repo.slug}`]);
  });

  it('exits 0 on a failing gate without --fail-on-gate, and 1 from `gate`', async () => {
    const repo = await newRepo({ max_open: { critical: 0 } });
    expect((await runCli(['upload', writeTemp('r.sarif', WITH_CRITICAL), '--repo', repo.slug, '--wait'], env())).code).toBe(0);
    const gate = await runCli(['gate', '--repo', repo.slug], env());
    expect(gate.code).toBe(1);
    expect(gate.stdout).toContain('gate: fail');
    expect(gate.stdout).toContain('[max_open] 1 open critical finding; the policy allows 0.');
    expect(gate.stderr).toBe(`scanyard: the gate failed for ${repo.slug}\n`);
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repo.id}/policy`, headers: { cookie: owner.cookie }, payload: { max_open: { critical: 1 } } });
    expect((await runCli(['gate', '--repo', repo.slug], env())).code).toBe(0);
  });

  it('exits 2 on a bad key, with the reason on one line', async () => {
    const repo = await newRepo();
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug, '--wait'], env('syd_not-a-real-key'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^scanyard: the API key was refused: The API key is not valid\.\n$/);
  });

  it('exits 2 when processing the upload fails', async () => {
    const repo = await newRepo();
    const run = await runCli(['upload', writeTemp('broken.sarif', '{"version": "2.1.0", "runs": "not a list"}'), '--repo', repo.slug, '--wait'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^scanyard: processing .*broken\.sarif failed: .+\n$/);
  });

  it('exits 2 on what it cannot do: a missing file, no URL, an unknown repository', async () => {
    expect((await runCli(['upload', '/nonexistent/x.sarif', '--repo', 'acme/x'], env())).stderr).toBe('scanyard: cannot read /nonexistent/x.sarif: ENOENT\n');
    const noUrl = await runCli(['gate', '--repo', 'acme/x'], { SCANYARD_KEY: uploadKey });
    expect([noUrl.code, noUrl.stderr]).toEqual([2, 'scanyard: no service URL: set SCANYARD_URL or pass --url\n']);
    const unknown = await runCli(['gate', '--repo', 'acme/no-such-repo'], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('repository acme/no-such-repo was not found');
  });

  it('with --wait, returns as soon as processing ends', async () => {
    const repo = await newRepo();
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug, '--wait'], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('gate: pass');
    // Node's start-up is most of it; the service answered the wait when the worker finished.
    expect(run.ms).toBeLessThan(5000);
  });

  it('times out with exit 2 when nothing processes the upload', async () => {
    await t.app.services.scans.stopWorkers();
    try {
      const repo = await newRepo();
      const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug, '--wait', '--timeout', '1'], env());
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^scanyard: timed out after 1s waiting for .*r\.sarif/);
      expect(run.ms).toBeGreaterThanOrEqual(1000);
    } finally {
      t.app.services.scans.startWorkers(1, t.app.log);
    }
  });

  it('--create adds a missing repository with a write key, and is refused with an upload key', async () => {
    const refused = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/brand-new', '--create', '--wait'], env(uploadKey));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('creating acme/brand-new failed (403)');
    expect(refused.stderr).toContain('"upload" scope');
    const made = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/brand-new', '--create', '--wait'], env(writeKey));
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('Created repository acme/brand-new');
    const found = await t.request({ url: '/api/v1/repos/lookup?org=acme&name=brand-new', headers: { cookie: owner.cookie } });
    expect(found.statusCode).toBe(200);
    expect(await uploads(found.json().id)).toHaveLength(1);
  });

  it.each([
    ['GitHub Actions (pull request)', { GITHUB_ACTIONS: 'true', GITHUB_SHA: 'aaa1111', GITHUB_REF: 'refs/pull/7/merge', GITHUB_BASE_REF: 'main' }, 'aaa1111', 'pr/7'],
    ['Gitea Actions', { GITEA_ACTIONS: 'true', GITHUB_ACTIONS: 'true', GITHUB_SHA: 'bbb2222', GITHUB_REF: 'refs/heads/dev' }, 'bbb2222', 'dev'],
    ['GitLab CI (merge request)', { GITLAB_CI: 'true', CI_COMMIT_SHA: 'ccc3333', CI_MERGE_REQUEST_IID: '12', CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_COMMIT_REF_NAME: 'feature' }, 'ccc3333', 'pr/12'],
    ['GitLab CI (tag)', { GITLAB_CI: 'true', CI_COMMIT_SHA: 'ddd4444', CI_COMMIT_TAG: 'v1.2.0', CI_COMMIT_REF_NAME: 'v1.2.0' }, 'ddd4444', 'refs/tags/v1.2.0'],
    ['Bitbucket Pipelines', { BITBUCKET_BUILD_NUMBER: '5', BITBUCKET_COMMIT: 'eee5555', BITBUCKET_BRANCH: 'main' }, 'eee5555', 'main'],
    ['Jenkins (pull request)', { JENKINS_URL: 'http://jenkins', GIT_COMMIT: 'fff6666', CHANGE_ID: '42', CHANGE_TARGET: 'main', BRANCH_NAME: 'PR-42' }, 'fff6666', 'pr/42'],
  ])('takes the commit and ref from %s', async (_ci, ciEnv, commit, ref) => {
    const repo = await newRepo();
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug], { ...env(), ...ciEnv });
    expect(run.code, run.stderr).toBe(0);
    expect((await uploads(repo.id))[0]).toMatchObject({ commit_sha: commit, ref });
  });

  it('sends a pull request\'s head and base commits: GitHub from the event payload, GitLab its merge base', async () => {
    const repo = await newRepo();
    // The pull_request event payload GitHub Actions writes to GITHUB_EVENT_PATH (docs.github.com webhook-events-and-payloads#pull_request).
    const event = writeTemp('event.json', JSON.stringify({ action: 'synchronize', number: 7, pull_request: { number: 7, head: { sha: 'a'.repeat(40), ref: 'feature' }, base: { sha: 'b'.repeat(40), ref: 'main' } } }));
    const gh = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug], { ...env(), GITHUB_ACTIONS: 'true', GITHUB_SHA: 'c'.repeat(40), GITHUB_REF: 'refs/pull/7/merge', GITHUB_BASE_REF: 'main', GITHUB_EVENT_PATH: event });
    expect(gh.code, gh.stderr).toBe(0);
    const gl = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', repo.slug], { ...env(), GITLAB_CI: 'true', CI_COMMIT_SHA: 'd'.repeat(40), CI_MERGE_REQUEST_IID: '12', CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_MERGE_REQUEST_DIFF_BASE_SHA: 'e'.repeat(40) });
    expect(gl.code, gl.stderr).toBe(0);
    const [fromGitlab, fromGithub] = await uploads(repo.id);
    expect(fromGithub).toMatchObject({ commit_sha: 'c'.repeat(40), head_sha: 'a'.repeat(40), base_sha: 'b'.repeat(40) });
    expect(fromGitlab).toMatchObject({ commit_sha: 'd'.repeat(40), head_sha: null, base_sha: 'e'.repeat(40) });
  });

  it('falls back to git for the commit and branch, and flags override it', async () => {
    const repo = await newRepo();
    const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-git-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, env: { PATH: process.env.PATH ?? '', HOME: checkout, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).toString().trim();
    git('init', '-q', '-b', 'trunk');
    git('commit', '-q', '--allow-empty', '-m', 'first');
    const head = git('rev-parse', 'HEAD');
    fs.writeFileSync(path.join(checkout, 'r.sarif'), MEDIUM);
    expect((await runCli(['upload', 'r.sarif', '--repo', repo.slug], env(), { cwd: checkout })).code).toBe(0);
    expect((await runCli(['upload', 'r.sarif', '--repo', repo.slug, '--ref', 'refs/heads/other', '--commit', 'feedbeef'], env(), { cwd: checkout })).code).toBe(0);
    const [flagged, fromGit] = await uploads(repo.id);
    expect(fromGit).toMatchObject({ commit_sha: head, ref: 'trunk' });
    expect(flagged).toMatchObject({ commit_sha: 'feedbeef', ref: 'other' });
  });
});

describe('the scanyard CLI under load shedding', () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    let lookups = 0;
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${Date.now()}`);
      if (req.url?.startsWith('/api/v1/repos/lookup')) {
        lookups++;
        if (lookups === 1) return res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/problem+json' }).end('{"status":429,"detail":"slow down"}');
        if (lookups === 2) return res.writeHead(503, { 'retry-after': '0' }).end();
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"r1"}');
      }
      if (req.url === '/api/v1/repos/r1/gate') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"warn","violations":[]}');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('retries 429 and 5xx answers, honouring Retry-After, then goes on', async () => {
    const run = await runCli(['gate', '--repo', 'acme/api'], { SCANYARD_URL: url, SCANYARD_KEY: 'syd_x' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('gate: warn');
    expect(run.stderr).toContain('answered 429; retrying in 1s');
    expect(run.stderr).toContain('answered 503; retrying in 0s');
    const times = seen.filter((s) => s.includes('lookup')).map((s) => Number(s.split(' ').at(-1)));
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });
});
