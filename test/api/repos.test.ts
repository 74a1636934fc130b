import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { bodyOfSize, orgClient, type Org, type Problem, type Repo } from '../support/orgs.js';

describe.each(DB_KINDS)('repositories on %s', (kind) => {
  let t: TestApp;
  let api: ReturnType<typeof orgClient>;
  let owner: { user: { id: string }; cookie: string };
  let org: Org;
  beforeAll(async () => {
    t = await createTestApp(kind);
    api = orgClient(t);
    owner = await t.user('olivia');
    org = await api.createOrg(owner.cookie, 'Repo Owners');
  });
  afterAll(() => t.close());

  it('adds a repository (201, Location) and gets it', async () => {
    const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/repos`, {
      name: 'api-server', url: 'https://forge.example.com/acme/api-server', default_branch: 'main',
    });
    expect(res.statusCode).toBe(201);
    const repo = res.json<Repo & { created_at: string; updated_at: string }>();
    expect(repo).toMatchObject({ org_id: org.id, name: 'api-server', url: 'https://forge.example.com/acme/api-server', default_branch: 'main' });
    expect(res.headers.location).toBe(`/api/v1/repos/${repo.id}`);
    expect((await api.call(owner.cookie, 'GET', `/api/v1/repos/${repo.id}`)).json()).toEqual(repo);
  });

  it('leaves url and default_branch null when not given (or given as null)', async () => {
    expect(await api.createRepo(owner.cookie, org.id, { name: 'bare' })).toMatchObject({ url: null, default_branch: null });
    expect(await api.createRepo(owner.cookie, org.id, { name: 'nulls', url: null, default_branch: null })).toMatchObject({ url: null, default_branch: null });
  });

  it('takes a default branch in any spelling of a branch, and refuses what names no branch', async () => {
    expect(await api.createRepo(owner.cookie, org.id, { name: 'spelled', default_branch: 'refs/heads/develop' })).toMatchObject({ default_branch: 'refs/heads/develop' });
    for (const [i, branch] of ['refs/tags/v1', 'pr/7', 'HEAD', 'a..b', 'rtl\u202Eniam'].entries()) {
      const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/repos`, { name: `bad-${i}`, default_branch: branch });
      expect(res.statusCode, branch).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ path: '/default_branch' })]);
    }
  });

  it('refuses a duplicate name within the org, ignoring case (409), but allows it in another org', async () => {
    await api.createRepo(owner.cookie, org.id, { name: 'Widget' });
    const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/repos`, { name: 'WIDGET' });
    expect(res.statusCode).toBe(409);
    const other = await api.createOrg(owner.cookie, 'Other Repo Org');
    expect((await api.call(owner.cookie, 'POST', `/api/v1/orgs/${other.id}/repos`, { name: 'widget' })).statusCode).toBe(201);
  });

  it('gives one 201 and one 409 when two requests race for a repository name', async () => {
    const results = await Promise.all(['Racer', 'racer', 'RACER'].map((name) => api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/repos`, { name })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
  });

  it.each([
    ['an unknown field', { name: 'x', private: true }, '/private', 'is not a known field'],
    ['a wrong type', { name: ['x'] }, '/name', 'must be string'],
    ['a name over 100 characters', { name: 'r'.repeat(101) }, '/name', 'must NOT have more than 100 characters'],
    ['a non-http url', { name: 'x', url: 'ftp://forge.example.com/r' }, '/url', 'must match pattern'],
    ['a url without a host', { name: 'x', url: 'https://' }, '/url', 'must match pattern'],
    ['a url that is not a URL', { name: 'x', url: 'not a url' }, '/url', 'must match format "uri"'],
    ['a url over 2000 characters', { name: 'x', url: `https://e.com/${'p'.repeat(2000)}` }, '/url', 'must NOT have more than 2000 characters'],
    ['an empty default branch', { name: 'x', default_branch: '' }, '/default_branch', 'must NOT have fewer than 1 characters'],
  ])('answers %s with 400 naming the field', async (_case, body, path, message) => {
    const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/repos`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json<Problem>().errors).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it('accepts http and https urls', async () => {
    expect((await api.createRepo(owner.cookie, org.id, { name: 'plain', url: 'http://git.local:3000/a/b' })).url).toBe('http://git.local:3000/a/b');
  });

  it('answers malformed JSON 400, wrong content type 415, too large 413', async () => {
    const url = `/api/v1/orgs/${org.id}/repos`;
    const headers = { cookie: owner.cookie, 'content-type': 'application/json' };
    expect((await t.request({ method: 'POST', url, headers, payload: '{oops' })).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url, headers: { ...headers, 'content-type': 'text/plain' }, payload: '{"name":"t"}' })).statusCode).toBe(415);
    expect((await t.request({ method: 'POST', url, headers, payload: bodyOfSize(1024 * 1024 + 10) })).statusCode).toBe(413);
  });

  it('lists repositories oldest first and filters by q', async () => {
    const own = await api.createOrg(owner.cookie, 'Listing');
    for (const name of ['frontend', 'Backend', 'back_office', 'backXoffice']) await api.createRepo(owner.cookie, own.id, { name });
    const list = await api.call(owner.cookie, 'GET', `/api/v1/orgs/${own.id}/repos`);
    expect(list.statusCode).toBe(200);
    expect(list.json<Repo[]>().map((r) => r.name)).toEqual(['frontend', 'Backend', 'back_office', 'backXoffice']);
    expect(list.headers['x-total-count']).toBe('4');
    const names = async (q: string) => (await api.call(owner.cookie, 'GET', `/api/v1/orgs/${own.id}/repos?q=${encodeURIComponent(q)}`)).json<Repo[]>().map((r) => r.name);
    expect(await names('BACK')).toEqual(['Backend', 'back_office', 'backXoffice']);
    expect(await names('k_o')).toEqual(['back_office']);
    expect(await names('%')).toEqual([]);
  });

  it('deletes a repository with its scan data (204), then 404', async () => {
    const repo = await api.createRepo(owner.cookie, org.id, { name: 'short-lived' });
    await t.db.kysely.insertInto('uploads').values({
      id: 'repo-upload-1', repository_id: repo.id, format: 'sarif', status: 'queued', sha256: 'x', size_bytes: 1, category: '', ref_kind: 'branch', ref_name: 'main', created_at: new Date().toISOString(),
    }).execute();
    expect((await api.call(owner.cookie, 'DELETE', `/api/v1/repos/${repo.id}`)).statusCode).toBe(204);
    expect((await api.call(owner.cookie, 'GET', `/api/v1/repos/${repo.id}`)).statusCode).toBe(404);
    expect((await api.call(owner.cookie, 'DELETE', `/api/v1/repos/${repo.id}`)).statusCode).toBe(404);
    expect(await t.db.kysely.selectFrom('uploads').select('id').where('repository_id', '=', repo.id).execute()).toEqual([]);
    const audit = await t.db.kysely.selectFrom('audit_events').select(['action', 'org_id', 'actor_id']).where('target_id', '=', repo.id).orderBy('created_at').orderBy('id').execute();
    expect(audit).toEqual([
      { action: 'repo.created', org_id: org.id, actor_id: owner.user.id },
      { action: 'repo.deleted', org_id: org.id, actor_id: owner.user.id },
    ]);
  });

  it('answers repos of an unknown org with 404', async () => {
    expect((await api.call(owner.cookie, 'GET', '/api/v1/orgs/nope/repos')).statusCode).toBe(404);
    expect((await api.call(owner.cookie, 'POST', '/api/v1/orgs/nope/repos', { name: 'x' })).statusCode).toBe(404);
  });

  it('visibleRepo gives the repo to members and 404 to strangers, as for a missing one', async () => {
    const repo = await api.createRepo(owner.cookie, org.id, { name: 'visible' });
    const member = await t.user('mia');
    await api.setMember(owner.cookie, org.id, member.user.id, 'member');
    await t.user('sam');
    const actorOf = async (login: string) => {
      const user = (await t.db.kysely.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirstOrThrow());
      return { user, isAdmin: false, via: 'session' as const, sessionId: null, key: null };
    };
    const { visibleRepo } = t.app.services.repoService;
    expect((await visibleRepo(await actorOf('mia'), repo.id)).id).toBe(repo.id);
    await expect(visibleRepo(await actorOf('sam'), repo.id)).rejects.toMatchObject({ status: 404, detail: 'The repository was not found.' });
    await expect(visibleRepo(await actorOf('sam'), 'missing')).rejects.toMatchObject({ status: 404, detail: 'The repository was not found.' });
  });
});

describe.each(DB_KINDS)('an organisation\'s repositories by open criticals on %s', (kind) => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('lists the repositories with the most open critical findings first (then high, then by name) with ?sort=critical', async () => {
    t = await createTestApp(kind);
    const api = orgClient(t);
    const owner = await t.user('olga');
    const org = await api.createOrg(owner.cookie, 'Portfolio');
    const key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    // The generic findings document (scanyard-findings/1, its schema in the OpenAPI document).
    const findings = (severities: string[]) => JSON.stringify({
      schema: 'scanyard-findings/1', tool: { name: 'audit' },
      findings: severities.map((severity, i) => ({ rule_id: `rule-${i}`, message: 'found', severity })),
    });
    const repos: Record<string, string> = {};
    for (const [name, severities] of Object.entries({ clean: [], 'one-critical': ['critical', 'low'], 'two-critical': ['critical', 'critical'], 'high-only': ['high'], 'one-critical-high': ['critical', 'high'] })) {
      repos[name] = (await api.createRepo(owner.cookie, org.id, { name })).id;
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repos[name]}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: findings(severities) });
      expect(res.statusCode, res.body).toBe(202);
    }
    await t.drain();
    const names = async (query: string) => (await api.call(owner.cookie, 'GET', `/api/v1/orgs/${org.id}/repos${query}`)).json<Repo[]>().map((r) => r.name);
    expect(await names('?sort=critical')).toEqual(['two-critical', 'one-critical-high', 'one-critical', 'high-only', 'clean']);
    expect(await names('?sort=critical&per_page=2&page=2')).toEqual(['one-critical', 'high-only']);
    expect(await names('')).toEqual(['clean', 'one-critical', 'two-critical', 'high-only', 'one-critical-high']);
    const bad = await api.call(owner.cookie, 'GET', `/api/v1/orgs/${org.id}/repos?sort=severity`);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
