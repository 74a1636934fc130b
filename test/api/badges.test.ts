import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';

/** The badge's words, in order, from its SVG (which must be well-formed XML). */
function badgeText(svg: string): string {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = new XMLParser({ ignoreAttributes: false }).parse(svg);
  expect(doc.svg['@_xmlns']).toBe('http://www.w3.org/2000/svg');
  return String(doc.svg.title);
}

describe.each(DB_KINDS)('badges on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let member: { cookie: string };
  let repoId: string;
  let otherRepoId: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    owner = await t.user('owner');
    const m = await t.user('member');
    member = m;
    const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/members/${m.user.id}`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'api' } })).json().id;
    otherRepoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'web' } })).json().id;
  });
  afterAll(() => t.close());

  const rotate = async (repo = repoId, cookie = owner.cookie) => t.request({ method: 'POST', url: `/api/v1/repos/${repo}/badge-token`, headers: { cookie } });
  const badge = (name: string, token: string | null, repo = repoId) =>
    t.request({ url: `/badge/${repo}/${name}.svg${token === null ? '' : `?token=${encodeURIComponent(token)}`}` });

  it('gives owners a token once, keeps only its hash, and refuses members', async () => {
    expect((await rotate(repoId, member.cookie)).statusCode).toBe(403);
    const res = await rotate();
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.token).toMatch(/^syb_[A-Za-z0-9_-]{32}$/);
    expect(body.gate_url).toBe(`/badge/${repoId}/gate.svg?token=${body.token}`);
    const stored = await t.db.kysely.selectFrom('badge_tokens').selectAll().where('repository_id', '=', repoId).executeTakeFirstOrThrow();
    expect(stored.token_hash).toBe(createHash('sha256').update(body.token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(body.token);
  });

  it('draws well-formed SVG badges, cached for five minutes', async () => {
    const { token } = (await rotate()).json();
    const findings = await badge('findings', token);
    expect(findings.statusCode).toBe(200);
    expect(findings.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(findings.headers['cache-control']).toBe('max-age=300');
    expect(badgeText(findings.body)).toBe('findings: not scanned');

    const key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    const sarif = sarifLog([{ rule: 'A', file: 'a.ts', securitySeverity: 9.5 }, { rule: 'B', file: 'b.ts', securitySeverity: 7.5 }, { rule: 'C', file: 'c.ts', securitySeverity: 7.5 }]);
    await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: sarif });
    await t.drain();
    const after = await badge('findings', token);
    expect(badgeText(after.body)).toBe('findings: 1 critical, 2 high');
    expect(after.body).toContain('#e05d44');

    expect(badgeText((await badge('gate', token)).body)).toBe('gate: passing');
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}/policy`, headers: { cookie: owner.cookie }, payload: { max_open: { critical: 0 } } });
    expect(badgeText((await badge('gate', token)).body)).toBe('gate: failing');
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}/policy`, headers: { cookie: owner.cookie }, payload: { licenses: { unknown: 'warn' } } });
    await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', components: [{ type: 'library', name: 'x', version: '1' }] }) });
    await t.drain();
    expect(badgeText((await badge('gate', token)).body)).toBe('gate: warning');
  });

  it('answers a missing, wrong, rotated or another repository\'s token exactly like a repository that does not exist', async () => {
    const old = (await rotate()).json().token;
    const current = (await rotate()).json().token;
    const other = (await rotate(otherRepoId)).json().token;
    expect((await badge('gate', current)).statusCode).toBe(200);
    const absent = await badge('gate', current, '0190a3b2-0000-7000-8000-000000000000');
    expect(absent.statusCode).toBe(404);
    for (const name of ['gate', 'findings']) {
      for (const token of [null, '', old, other, `${current}x`, 'syb_guess', 'x'.repeat(2000)]) {
        const res = await badge(name, token);
        expect(res.statusCode, `${name} with ${token}`).toBe(404);
        expect(res.json()).toEqual(absent.json());
        expect(res.headers['cache-control']).toBeUndefined();
      }
    }
    // A repository that never had a token, with some repository's valid token.
    const fresh = (await t.request({ method: 'POST', url: `/api/v1/orgs/${(await t.request({ url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie } })).json().org_id}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'untokened' } })).json().id;
    expect((await badge('gate', current, fresh)).json()).toEqual(absent.json());
  });
});

describe('badge tokens in logs', () => {
  it('are masked in the logged request line, as are the ones created', async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const t = await createTestApp('sqlite', { LOG_LEVEL: 'debug' }, { stream });
    try {
      const owner = await t.user('owner');
      const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
      const repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'api' } })).json().id;
      const { token } = (await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/badge-token`, headers: { cookie: owner.cookie } })).json();
      expect((await t.request({ url: `/badge/${repoId}/gate.svg?token=${token}` })).statusCode).toBe(200);
      const all = lines.join('');
      expect(all).toContain(`/badge/${repoId}/gate.svg?token=[redacted]`);
      expect(all).not.toContain(token);
    } finally {
      await t.close();
    }
  });
});
