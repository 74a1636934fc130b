import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { SignJWT, generateKeyPair } from 'jose';
import { buildApp, type App } from '../../src/app.js';
import { openDatabase, type Db } from '../../src/db/index.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';
import { bitbucketClaims, githubClaims, gitlabClaims, startCiIssuer, type CiIssuer } from '../support/ci-issuer.js';

/**
 * Keyless uploads: a pipeline's OIDC job token, signed by a local issuer that serves discovery and
 * JWKS as GitHub, GitLab and Bitbucket do, is exchanged for a short-lived Scanyard token that
 * uploads only where the org's trust rules say, only for the job's ref and commit.
 */
const BITBUCKET_AUDIENCE = 'ari:cloud:bitbucket::workspace/{1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d}';
const BITBUCKET_REPO = '{b2a9e5a4-1f0c-4e8e-9d2a-4b6c1f0e7a11}';

describe.each(DB_KINDS)('keyless CI uploads on %s', (kind) => {
  let t: TestApp;
  let github: CiIssuer;
  let gitlab: CiIssuer;
  let bitbucket: CiIssuer;
  let stranger: CiIssuer;
  let owner: { user: { id: string }; cookie: string };
  let orgId: string;
  let apiRepo: string;
  let webRepo: string;
  let audience: string;

  beforeAll(async () => {
    [github, gitlab, bitbucket, stranger] = await Promise.all([
      startCiIssuer({ path: '/_services/token' }), startCiIssuer(), startCiIssuer(), startCiIssuer(),
    ]);
    t = await createTestApp(kind, {
      // The forge the "linked" org follows (forge/): its link names this sign-in provider.
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'gh', type: 'github', name: 'GitHub', client_id: 'scanyard', client_secret: 'not-used-here' }]),
      SERVICE_CI_ALLOW_PRIVATE: 'true',
      SERVICE_CI_ISSUERS: JSON.stringify([
        { id: 'github', type: 'github-actions', issuer: github.url },
        { id: 'gitlab', type: 'gitlab', issuer: gitlab.url },
        { id: 'bitbucket', type: 'bitbucket', issuer: bitbucket.url, audience: BITBUCKET_AUDIENCE },
      ]),
    });
    audience = t.config.baseUrl;
    owner = await t.user('owner');
    const api = orgClient(t);
    orgId = (await api.createOrg(owner.cookie, 'acme')).id;
    apiRepo = (await api.createRepo(owner.cookie, orgId, { name: 'api' })).id;
    webRepo = (await api.createRepo(owner.cookie, orgId, { name: 'web' })).id;
    for (const rule of [
      { issuer: 'github', repository: 'acme/api', target_repo_id: apiRepo },
      { issuer: 'gitlab', repository: 'acme/*', ref: 'refs/heads/**', target_repo_id: apiRepo },
      { issuer: 'bitbucket', repository: BITBUCKET_REPO, target_repo_id: apiRepo },
    ]) {
      const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/ci-trust`, headers: { cookie: owner.cookie }, payload: rule });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([github, gitlab, bitbucket, stranger].map((i) => i?.close()));
  });

  const exchange = (token: string) => t.request({ method: 'POST', url: '/auth/ci/token', payload: { token } });
  async function ciToken(jwt: string): Promise<string> {
    const res = await exchange(jwt);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ token: string }>().token;
  }
  const upload = (token: string, repoId: string, query = '') => t.request({
    method: 'POST', url: `/api/v1/repos/${repoId}/upload${query}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r1', file: 'a.js' }]),
  });
  async function refused(jwt: string, reason: string) {
    const res = await exchange(jwt);
    expect(res.statusCode, res.body).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json<{ reason: string; detail: string }>();
    expect(body.reason).toBe(reason);
    // Never which rules exist, nor what came near.
    expect(body.detail).not.toMatch(/acme|linked|target|repositor/i);
    return body;
  }

  it('exchanges a GitHub push token and uploads to its repository on its ref and commit, naming the token', async () => {
    const claims = githubClaims(github.url, audience);
    const res = await exchange(await github.sign(claims));
    expect(res.statusCode, res.body).toBe(200);
    const exchanged = res.json<{ token: string; expires_at: string; repositories: { id: string }[]; ref: string }>();
    expect(exchanged.token).toMatch(/^syc_/);
    expect(exchanged.repositories.map((r) => r.id)).toEqual([apiRepo]);
    const lifetime = Date.parse(exchanged.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(14 * 60 * 1000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60 * 1000);

    const up = await upload(exchanged.token, apiRepo);
    expect(up.statusCode, up.body).toBe(202);
    const stored = up.json<{ id: string; ref: string; commit_sha: string; ci_token_id: string }>();
    expect(stored).toMatchObject({ ref: 'main', commit_sha: claims.sha, ci_token_id: expect.any(String) });
    await t.drain();
    const status = await t.request({ url: `/api/v1/uploads/${stored.id}`, headers: { authorization: `Bearer ${exchanged.token}` } });
    expect(status.statusCode).toBe(200);
    expect(status.json().status).toBe('complete');
    expect((await t.request({ url: `/api/v1/repos/${apiRepo}/gate`, headers: { authorization: `Bearer ${exchanged.token}` } })).statusCode).toBe(200);

    const log = (await t.request({ url: `/api/v1/orgs/${orgId}/audit?action=ci.token.exchanged`, headers: { cookie: owner.cookie } })).json();
    const entry = log.find((e: { target: { id: string } }) => e.target.id === stored.ci_token_id);
    expect(entry.details).toMatchObject({ issuer: 'github', repositories: [apiRepo], claims: { repository: 'acme/api', repository_id: '74', ref: 'refs/heads/main', sha: claims.sha, event_name: 'push' } });
    expect(entry.details.rules).toHaveLength(1);
    expect(JSON.stringify(log)).not.toContain(exchanged.token);
  });

  it('uploads a pull request job to refs/pull/7/merge and never to main (409 naming both)', async () => {
    const claims = githubClaims(github.url, audience, { ref: 'refs/pull/7/merge', event_name: 'pull_request', head_ref: 'feature', base_ref: 'main', sub: 'repo:acme/api:pull_request' });
    const token = await ciToken(await github.sign(claims));
    const toMain = await upload(token, apiRepo, '?ref=main');
    expect(toMain.statusCode).toBe(409);
    expect(toMain.json().detail).toContain('main');
    expect(toMain.json().detail).toContain('refs/pull/7/merge');
    const otherCommit = await upload(token, apiRepo, '?commit_sha=0123456789abcdef0123456789abcdef01234567');
    expect(otherCommit.statusCode).toBe(409);
    expect(otherCommit.json().detail).toContain(String(claims.sha));
    const pr = await upload(token, apiRepo);
    expect(pr.statusCode, pr.body).toBe(202);
    expect(pr.json()).toMatchObject({ ref: 'pr/7', ref_kind: 'pull_request', base_ref: 'main' });
    // The same ref spelt another way is no contradiction.
    expect((await upload(token, apiRepo, '?ref=pr/7')).statusCode).toBe(202);
    const uploads = (await t.request({ url: `/api/v1/repos/${apiRepo}/uploads?ref=main&per_page=100`, headers: { cookie: owner.cookie } })).json<{ ci_token_id: string | null }[]>();
    const tokenId = pr.json().ci_token_id;
    expect(uploads.some((u) => u.ci_token_id === tokenId)).toBe(false);
  });

  it('lets the short-lived token do nothing else: 404 for other repositories, 403 for other routes', async () => {
    const token = await ciToken(await github.sign(githubClaims(github.url, audience)));
    const as = { authorization: `Bearer ${token}` };
    expect((await upload(token, webRepo)).statusCode).toBe(404);
    // Its own uploads it reads; another upload of the same repository is not visible to it.
    const own = (await upload(token, apiRepo)).json().id;
    expect((await t.request({ url: `/api/v1/uploads/${own}`, headers: as })).statusCode).toBe(200);
    const someoneElses = (await t.request({
      method: 'POST', url: `/api/v1/repos/${apiRepo}/upload`, headers: { cookie: owner.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r2', file: 'b.js' }]),
    })).json().id;
    expect((await t.request({ url: `/api/v1/uploads/${someoneElses}`, headers: as })).statusCode).toBe(404);
    expect((await t.request({ url: `/api/v1/repos/${webRepo}/gate`, headers: as })).statusCode).toBe(404);
    for (const url of [`/api/v1/repos/${apiRepo}/status`, `/api/v1/repos/${apiRepo}/findings`, `/api/v1/repos/${apiRepo}/uploads`, '/api/v1/orgs', '/api/v1/me', `/api/v1/orgs/${orgId}/ci-trust`]) {
      expect((await t.request({ url, headers: as })).statusCode, url).toBe(403);
    }
    expect((await t.request({ method: 'POST', url: '/api/v1/apikeys', headers: as, payload: { name: 'escalate' } })).statusCode).toBe(403);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/repos/${apiRepo}`, headers: as })).statusCode).toBe(403);
    // Once its 15 minutes are over, it is nothing.
    await t.db.kysely.updateTable('ci_tokens').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    expect((await upload(token, apiRepo)).statusCode).toBe(401);
  });

  it('refuses each bad token with its reason', async () => {
    await refused(await stranger.sign(githubClaims(stranger.url, audience)), 'issuer');
    // Signed by another key under the issuer's kid.
    const { privateKey } = await generateKeyPair('RS256');
    await refused(await github.sign(githubClaims(github.url, audience), { key: privateKey, kid: github.currentKid() }), 'signature');
    const tampered = (await github.sign(githubClaims(github.url, audience))).split('.');
    const body = JSON.parse(Buffer.from(tampered[1]!, 'base64url').toString());
    tampered[1] = Buffer.from(JSON.stringify({ ...body, repository: 'acme/web' })).toString('base64url');
    await refused(tampered.join('.'), 'signature');
    // HMAC keyed with something (a public key, a guess): never accepted.
    const hmac = await new SignJWT(githubClaims(github.url, audience)).setProtectedHeader({ alg: 'HS256', kid: github.currentKid() }).sign(new TextEncoder().encode('x'.repeat(32)));
    await refused(hmac, 'algorithm');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(githubClaims(github.url, audience))).toString('base64url')}.`;
    await refused(none, 'algorithm');
    const now = Math.floor(Date.now() / 1000);
    await refused(await github.sign(githubClaims(github.url, audience, { exp: now - 61, iat: now - 400, nbf: now - 400 })), 'expired');
    await refused(await github.sign(githubClaims(github.url, audience, { nbf: now + 120 })), 'not_yet_valid');
    await refused(await github.sign(githubClaims(github.url, audience, { iat: now + 120, nbf: now - 5 })), 'not_yet_valid');
    await refused(await github.sign(githubClaims(github.url, 'https://github.com/acme')), 'audience');
    await refused(await github.sign(githubClaims(github.url, audience, { repository: 'acme/other', repository_id: '75' })), 'no_rule');
    // A pull_request_target job runs for a pull request with the base branch's ref: no rule trusts it.
    await refused(await github.sign(githubClaims(github.url, audience, { event_name: 'pull_request_target' })), 'no_rule');
    // Within 60 s of skew is still on time.
    expect((await exchange(await github.sign(githubClaims(github.url, audience, { exp: now - 30, iat: now - 300, nbf: now - 300 })))).statusCode).toBe(200);
  });

  it('exchanges a token once (jti), across instances on one database', async () => {
    const jwt = await github.sign(githubClaims(github.url, audience));
    const otherDb: Db = openDatabase(t.config.database);
    const other: App = await buildApp({ config: t.config, db: otherDb, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
    try {
      await other.ready();
      const onB = (options: InjectOptions) => other.inject({ ...options, headers: { host: new URL(t.config.baseUrl).host, ...options.headers } });
      expect((await exchange(jwt)).statusCode).toBe(200);
      const again = await onB({ method: 'POST', url: '/auth/ci/token', payload: { token: jwt } });
      expect(again.statusCode).toBe(401);
      expect(again.json().reason).toBe('replayed');
      await refused(jwt, 'replayed');
    } finally {
      await other.close();
      await otherDb.close();
    }
  });

  it('pins a repository name to its id at first use: a re-created acme/api is not trusted', async () => {
    await ciToken(await github.sign(githubClaims(github.url, audience)));
    await refused(await github.sign(githubClaims(github.url, audience, { repository_id: '9001' })), 'no_rule');
  });

  it('follows key rotation: a new kid fetches the keys once, a withdrawn key stops verifying', async () => {
    const oldToken = await github.sign(githubClaims(github.url, audience));
    await github.rotate(true);
    const before = github.jwksFetches;
    await ciToken(await github.sign(githubClaims(github.url, audience)));
    expect(github.jwksFetches).toBe(before + 1);
    // The refetched set replaced the cached one: the old key is gone.
    await refused(oldToken, 'signature');
    // Another unknown kid within 30 s fetches nothing.
    await refused(await github.sign(githubClaims(github.url, audience), { kid: 'unknown-kid' }), 'signature');
    expect(github.jwksFetches).toBe(before + 1);
  });

  it('reads GitLab tokens: ref and ref_type as a full ref, a merge request pipeline only on its branch or a merge request ref', async () => {
    const push = gitlabClaims(gitlab.url, audience);
    const token = await ciToken(await gitlab.sign(push));
    const up = await upload(token, apiRepo);
    expect(up.statusCode, up.body).toBe(202);
    expect(up.json()).toMatchObject({ ref: 'main', commit_sha: push.sha });

    const mr = gitlabClaims(gitlab.url, audience, { pipeline_source: 'merge_request_event', ref: 'feature', ref_path: 'refs/heads/feature', sub: 'project_path:acme/api:ref_type:branch:ref:feature' });
    const mrToken = await ciToken(await gitlab.sign(mr));
    expect((await upload(mrToken, apiRepo, '?ref=main')).statusCode).toBe(409);
    expect((await upload(mrToken, apiRepo, '?ref=refs/tags/v1')).statusCode).toBe(409);
    const toMr = await upload(mrToken, apiRepo, '?ref=refs/merge-requests/3/head');
    expect(toMr.statusCode, toMr.body).toBe(202);
    expect(toMr.json().ref).toBe('pr/3');
    // The rule names branches: a tag pipeline is not trusted.
    await refused(await gitlab.sign(gitlabClaims(gitlab.url, audience, { ref: 'v1', ref_type: 'tag', ref_path: 'refs/tags/v1' })), 'no_rule');
  });

  it('reads Bitbucket tokens (no jti: used once by their hash; the repository by its UUID)', async () => {
    const jwt = await bitbucket.sign(bitbucketClaims(bitbucket.url, BITBUCKET_AUDIENCE));
    const token = await ciToken(jwt);
    const up = await upload(token, apiRepo, '?commit_sha=abcdef1234567');
    expect(up.statusCode, up.body).toBe(202);
    expect(up.json()).toMatchObject({ ref: 'main', commit_sha: 'abcdef1234567' });
    await refused(jwt, 'replayed');
    await refused(await bitbucket.sign(bitbucketClaims(bitbucket.url, audience)), 'audience');
  });

  it("targets the repository whose forge_id is the token's repository id, and the default rule in a forge-linked org", async () => {
    const api = orgClient(t);
    const linked = (await api.createOrg(owner.cookie, 'linked')).id;
    const repo = (await api.createRepo(owner.cookie, linked, { name: 'svc' })).id;
    // What linking and forge sync write (forge/): the link, and the repository's forge id and name.
    await t.db.kysely.updateTable('repos').set({ forge_id: '4242', full_name: 'linked/svc' }).where('id', '=', repo).execute();
    const unlinked = await exchange(await github.sign(githubClaims(github.url, audience, { repository: 'linked/svc', repository_id: '4242', sub: 'repo:linked/svc:ref:refs/heads/main' })));
    expect(unlinked.json().reason, 'no default rule before the org is linked').toBe('no_rule');
    await t.db.kysely.insertInto('forge_links').values({
      org_id: linked, provider_id: 'gh', owner: 'linked', owner_key: 'linked', linked_by: null, created_at: new Date().toISOString(),
      last_synced_at: null, last_error: null, sync_due_at: null, sync_parts: null, lease_until: null,
    }).execute();
    const claims = { repository: 'linked/svc', repository_id: '4242', sub: 'repo:linked/svc:ref:refs/heads/main' };
    const res = await exchange(await github.sign(githubClaims(github.url, audience, claims)));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().repositories.map((r: { id: string }) => r.id)).toEqual([repo]);
    // The same id from another forge's pipeline (a GitLab project 4242) is not this GitHub repository.
    await refused(await gitlab.sign(gitlabClaims(gitlab.url, audience, { project_path: 'linked/svc', project_id: '4242' })), 'no_rule');
    // Same name, another id (a re-created repository): not the one the forge link knows.
    await refused(await github.sign(githubClaims(github.url, audience, { ...claims, repository_id: '4243' })), 'no_rule');

    const off = await t.request({ method: 'PUT', url: `/api/v1/orgs/${linked}/ci-trust/default-rule`, headers: { cookie: owner.cookie }, payload: { enabled: false } });
    expect(off.json()).toEqual({ enabled: false, applies: false });
    await refused(await github.sign(githubClaims(github.url, audience, claims)), 'no_rule');
    // An explicit rule without target_repo_id finds the repository by forge_id.
    const rule = await t.request({ method: 'POST', url: `/api/v1/orgs/${linked}/ci-trust`, headers: { cookie: owner.cookie }, payload: { issuer: 'github', repository: 'linked/*', event: 'push' } });
    expect(rule.statusCode, rule.body).toBe(201);
    const again = await exchange(await github.sign(githubClaims(github.url, audience, claims)));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().repositories.map((r: { id: string }) => r.id)).toEqual([repo]);
    await refused(await github.sign(githubClaims(github.url, audience, { ...claims, event_name: 'pull_request', ref: 'refs/pull/1/merge' })), 'no_rule');
  });

  it('validates trust rules', async () => {
    const post = (payload: Record<string, unknown>) => t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/ci-trust`, headers: { cookie: owner.cookie }, payload });
    expect((await post({ issuer: 'circleci', repository: 'acme/api' })).json().errors[0].path).toBe('/issuer');
    expect((await post({ issuer: 'github', repository: 'acme/**/x' })).statusCode).toBe(400);
    expect((await post({ issuer: 'github', repository: 'acme/api', ref: 'main' })).json().errors[0].path).toBe('/ref');
    expect((await post({ issuer: 'github', repository: 'acme/api', event: 'schedule' })).statusCode).toBe(400);
    expect((await post({ issuer: 'github', repository: 'acme/api', target_repo_id: 'nope' })).json().errors[0].path).toBe('/target_repo_id');
    const list = await t.request({ url: `/api/v1/orgs/${orgId}/ci-trust`, headers: { cookie: owner.cookie } });
    expect(list.json().map((r: { issuer: string }) => r.issuer).sort()).toEqual(['bitbucket', 'github', 'gitlab']);
    expect((await t.request({ method: 'POST', url: '/auth/ci/token', payload: { token: 'not a jwt' } })).json().reason).toBe('signature');
    expect((await t.request({ method: 'POST', url: '/auth/ci/token', payload: {} })).statusCode).toBe(400);
  });
});
