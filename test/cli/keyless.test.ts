import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../support/db.js';
import type { TestApp } from '../support/app.js';
import { sarifLog } from '../support/sarif.js';
import { bitbucketClaims, githubClaims, gitlabClaims, startCiIssuer, type CiIssuer } from '../support/ci-issuer.js';
import { listeningApp, runCli, writeTemp } from './support.js';

const MEDIUM = sarifLog([{ rule: 'M1', file: 'src/a.ts', securitySeverity: 5 }]);
const CRITICAL = sarifLog([{ rule: 'C1', file: 'src/b.ts', securitySeverity: 9.8 }]);
const REQUEST_TOKEN = 'ghs_request-token-for-the-job';
const BITBUCKET_AUDIENCE = 'ari:cloud:bitbucket::workspace/{1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d}';
const BITBUCKET_REPO = '{b2a9e5a4-1f0c-4e8e-9d2a-4b6c1f0e7a11}';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * `scanyard upload` with no key inside a simulated GitHub Actions job (the runner's ID token
 * endpoint, ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN, served here as the Actions toolkit calls it) and a
 * simulated GitLab job (an id_tokens entry SCANYARD_ID_TOKEN), against a listening server.
 */
describe.each(DB_KINDS)('the CLI uploads keylessly from CI on %s', (kind) => {
  let t: TestApp & { url: string };
  let github: CiIssuer;
  let gitlab: CiIssuer;
  let bitbucket: CiIssuer;
  let tokenEndpoint: Server;
  let tokenUrl: string;
  let owner: { cookie: string };
  let repoId: string;
  const audiencesAsked: string[] = [];

  beforeAll(async () => {
    [github, gitlab, bitbucket] = await Promise.all([startCiIssuer(), startCiIssuer(), startCiIssuer()]);
    const port = await freePort();
    t = await listeningApp(kind, {
      SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_CI_ALLOW_PRIVATE: 'true',
      SERVICE_CI_ISSUERS: JSON.stringify([
        { id: 'github', type: 'github-actions', issuer: github.url }, { id: 'gitlab', type: 'gitlab', issuer: gitlab.url },
        { id: 'bitbucket', type: 'bitbucket', issuer: bitbucket.url, audience: BITBUCKET_AUDIENCE },
      ]),
    }, port);
    owner = await t.user('owner');
    const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'api' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}/policy`, headers: { cookie: owner.cookie }, payload: { fail_on_new: 'high' } });
    for (const [issuer, repository] of [['github', 'acme/api'], ['gitlab', 'acme/api'], ['bitbucket', BITBUCKET_REPO]]) {
      const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/ci-trust`, headers: { cookie: owner.cookie }, payload: { issuer, repository, target_repo_id: repoId } });
      expect(res.statusCode, res.body).toBe(201);
    }
    // The Actions runtime's ID token endpoint: GET ...?api-version=2.0&audience=X with the request token, answering {"value": jwt}.
    tokenEndpoint = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://runner');
      if (req.headers.authorization !== `Bearer ${REQUEST_TOKEN}` || url.searchParams.get('api-version') !== '2.0') {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Unauthorized"}');
        return;
      }
      const audience = url.searchParams.get('audience') ?? 'https://github.com/acme';
      audiencesAsked.push(audience);
      void github.sign(githubClaims(github.url, audience, { sha: 'abc1234def5678abc1234def5678abc1234def56' })).then((value) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: 1, value }));
      });
    });
    await new Promise<void>((resolve) => tokenEndpoint.listen(0, '127.0.0.1', resolve));
    tokenUrl = `http://127.0.0.1:${(tokenEndpoint.address() as AddressInfo).port}/_apis/pipelines/1/runs/2/idtoken?api-version=2.0`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => tokenEndpoint?.close(() => resolve()));
    await t?.close();
    await Promise.all([github?.close(), gitlab?.close(), bitbucket?.close()]);
  });

  /** The variables a GitHub Actions job with `permissions: id-token: write` has (docs: "Variables" and "OpenID Connect"). */
  const actionsEnv = () => ({
    SCANYARD_URL: t.url, GITHUB_ACTIONS: 'true', CI: 'true', GITHUB_REPOSITORY: 'acme/api', GITHUB_EVENT_NAME: 'push',
    GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'abc1234def5678abc1234def5678abc1234def56',
    ACTIONS_ID_TOKEN_REQUEST_URL: tokenUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
  });

  it('in GitHub Actions: asks the runner for a token for the Scanyard URL, exchanges it and uploads (exit 0, then 1 on a failed gate)', async () => {
    const run = await runCli(['upload', writeTemp('results.sarif', MEDIUM), '--repo', 'acme/api', '--fail-on-gate'], actionsEnv());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('gate: pass');
    expect(audiencesAsked.at(-1)).toBe(t.url.replace(/\/$/, ''));
    const [stored] = (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: { cookie: owner.cookie } })).json();
    expect(stored).toMatchObject({ status: 'complete', ref: 'main', commit_sha: 'abc1234def5678abc1234def5678abc1234def56', ci_token_id: expect.any(String) });

    const failing = await runCli(['upload', writeTemp('results.sarif', CRITICAL), '--repo', 'acme/api', '--fail-on-gate'], actionsEnv());
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('new: 1 critical');
  });

  it('prefers a key when one is given', async () => {
    const key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    const asked = audiencesAsked.length;
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/api'], { ...actionsEnv(), SCANYARD_KEY: key });
    expect(run.code).toBe(0);
    expect(audiencesAsked.length).toBe(asked);
    const [stored] = (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: { cookie: owner.cookie } })).json();
    expect(stored.ci_token_id).toBeNull();
  });

  /** A GitLab job with `id_tokens: SCANYARD_ID_TOKEN: aud: ...` (docs: predefined variables and id_tokens). */
  const gitlabEnv = async (aud: string) => ({
    SCANYARD_URL: t.url, GITLAB_CI: 'true', CI: 'true', CI_PROJECT_PATH: 'acme/api', CI_PIPELINE_SOURCE: 'push',
    CI_COMMIT_BRANCH: 'main', CI_COMMIT_REF_NAME: 'main', CI_COMMIT_SHA: '714a629c0b401fdce83e847fc9589983fc6f46bc',
    SCANYARD_ID_TOKEN: await gitlab.sign(gitlabClaims(gitlab.url, aud)),
  });

  it('in GitLab CI: exchanges SCANYARD_ID_TOKEN and uploads', async () => {
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/api', '--wait'], await gitlabEnv(t.url));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [stored] = (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: { cookie: owner.cookie } })).json();
    expect(stored).toMatchObject({ status: 'complete', ref: 'main', commit_sha: '714a629c0b401fdce83e847fc9589983fc6f46bc', ci_token_id: expect.any(String) });
  });

  it('exits 2 with the reason on one line when the exchange is refused', async () => {
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/api'], await gitlabEnv('https://vault.example.com'));
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('(audience)');
    // --audience asks GitHub for another audience, which this service refuses as well.
    const other = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/api', '--audience', 'https://elsewhere.example'], actionsEnv());
    expect(other.code).toBe(2);
    expect(audiencesAsked.at(-1)).toBe('https://elsewhere.example');
    expect(other.stderr).toContain('(audience)');
  });

  it('in a Bitbucket pull request step: uploads to the branch its token names, with the commit from BITBUCKET_COMMIT', async () => {
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/api'], {
      SCANYARD_URL: t.url, CI: 'true', BITBUCKET_BUILD_NUMBER: '12', BITBUCKET_BRANCH: 'feature', BITBUCKET_PR_ID: '5', BITBUCKET_PR_DESTINATION_BRANCH: 'main',
      BITBUCKET_COMMIT: '9fceb02d0ae598e95dc970b74767f19372d61af8', BITBUCKET_STEP_OIDC_TOKEN: await bitbucket.sign(bitbucketClaims(bitbucket.url, BITBUCKET_AUDIENCE, { branchName: 'feature' })),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [stored] = (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: { cookie: owner.cookie } })).json();
    expect(stored).toMatchObject({ ref: 'feature', commit_sha: '9fceb02d0ae598e95dc970b74767f19372d61af8', ci_token_id: expect.any(String) });
  });

  it('without a key or a job token, says how to get one (exit 2)', async () => {
    const run = await runCli(['upload', writeTemp('r.sarif', MEDIUM), '--repo', 'acme/api'], { SCANYARD_URL: t.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no API key');
  });
});
