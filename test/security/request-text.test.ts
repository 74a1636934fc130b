import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { CORPUS } from '../support/corpus.js';

const SARIF = fs.readFileSync(path.join(CORPUS, 'sarif/codeql-2.2.4-js-xss.sarif'));

/** A multipart form as a browser or curl -F sends it. */
async function form(fields: Record<string, string>, files: number): Promise<{ body: Buffer; contentType: string }> {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  for (let i = 0; i < files; i++) data.append('file', new Blob([SARIF]), `scan-${i}.sarif`);
  const request = new Request('http://x', { method: 'POST', body: data });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/**
 * What the service stores must read back as it was sent: text that cannot (a NUL, an unpaired
 * surrogate, bytes that are not UTF-8, a percent-encoding that is none) is refused with a 400 naming
 * it, never stored changed; a body in a form it does not read is a 415, not read as something else.
 */
describe.each(DB_KINDS)('request text on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let orgId: string;
  let repoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('owner'));
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'acme' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie }, payload: { name: 'web' } })).json().id;
  });
  afterAll(() => t.close());

  const send = (options: InjectOptions) => t.request({ ...options, headers: { cookie, ...options.headers } });
  const problem = async (options: InjectOptions, status: number) => {
    const res = await send(options);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    return res.json<{ detail: string; errors?: { path: string; message: string }[] }>();
  };
  const org = async () => (await send({ url: `/api/v1/orgs/${orgId}` })).json<{ description: string | null }>();

  it('refuses an unpaired surrogate in a JSON body, naming the field, and stores nothing', async () => {
    const answer = await problem({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json' }, payload: '{"description":"a\\ud800b"}' }, 400);
    expect(answer.errors).toEqual([{ path: '/description', message: 'must not contain an unpaired surrogate (such as \\ud800)' }]);
    expect((await org()).description).toBe('');
    // A pair is one character, and is kept as sent.
    const paired = await send({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json' }, payload: '{"description":"scan \\ud83d\\udd0d"}' });
    expect(paired.statusCode, paired.body).toBe(200);
    expect((await org()).description).toBe('scan \u{1F50D}');
  });

  it('refuses a JSON body that is not UTF-8, in another charset, or encoded', async () => {
    const bytes = Buffer.concat([Buffer.from('{"description":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect((await problem({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json' }, payload: bytes }, 400)).detail).toBe('The body is not valid UTF-8.');
    expect((await problem({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json; charset=utf-16' }, payload: '{"description":"x"}' }, 415)).detail).toMatch(/UTF-8 only, not utf-16/);
    expect((await problem({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: gzipSync('{"description":"x"}') }, 415)).detail).toMatch(/without Content-Encoding/);
    // A body that only says it is gzip is refused all the same: not stored as if it had said nothing.
    await problem({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: '{"description":"x"}' }, 415);
    expect((await org()).description).toBe('scan \u{1F50D}');
    const utf8 = await send({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { 'content-type': 'application/json; charset=UTF-8' }, payload: '{"description":"café"}' });
    expect(utf8.statusCode, utf8.body).toBe(200);
    expect((await org()).description).toBe('café');
  });

  it('answers text/plain with 415 on every JSON route, triage and suppressions included', async () => {
    for (const url of [`/api/v1/orgs/${orgId}/suppressions`, `/api/v1/repos/${repoId}/findings/triage`, `/api/v1/orgs/${orgId}/teams`]) {
      await problem({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: '{"name":"x"}' }, 415);
    }
  });

  it('refuses a query string that is not percent-encoded UTF-8', async () => {
    for (const query of ['q=%zz', 'q=%FF', 'q=%ED%A0%80', 'q=50%']) {
      expect((await problem({ url: `/api/v1/repos/${repoId}/findings?${query}` }, 400)).detail).toBe('The query string is not valid percent-encoded UTF-8.');
    }
    expect((await send({ url: `/api/v1/repos/${repoId}/findings?q=caf%C3%A9+au+lait` })).statusCode).toBe(200);
    // An upload's ref is never a branch named after the bytes it could not decode.
    await problem({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?ref=%FF`, headers: { 'content-type': 'application/sarif+json' }, payload: SARIF }, 400);
    expect((await send({ url: `/api/v1/repos/${repoId}/refs` })).json()).toEqual([]);
  });

  it('checks the context fields of a multipart upload as it checks the query string', async () => {
    const nul = await form({ category: 'x\u0000y' }, 1);
    const answer = await problem({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { 'content-type': nul.contentType }, payload: nul.body }, 400);
    expect(answer.errors).toEqual([{ path: '/fields/category', message: 'must not contain a NUL character' }]);
    const two = await form({}, 2);
    expect((await problem({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { 'content-type': two.contentType }, payload: two.body }, 400)).detail).toMatch(/more parts than this endpoint takes/);
    const compressed = await form({}, 1);
    await problem({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { 'content-type': compressed.contentType, 'content-encoding': 'gzip' }, payload: compressed.body }, 415);
    expect((await send({ url: `/api/v1/repos/${repoId}/uploads` })).json()).toEqual([]);
    const good = await form({ category: 'js' }, 1);
    const accepted = await send({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { 'content-type': good.contentType }, payload: good.body });
    expect(accepted.statusCode, accepted.body).toBe(202);
    expect(accepted.json()).toMatchObject({ category: 'js' });
  });

  it('refuses an upload in a Content-Encoding it does not read instead of storing the bytes as the document', async () => {
    for (const encoding of ['br', 'deflate', 'gzip, br']) {
      expect((await problem({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { 'content-type': 'application/sarif+json', 'content-encoding': encoding }, payload: SARIF }, 415)).detail).toMatch(/is not read/);
    }
    for (const encoding of ['gzip', 'x-gzip', 'GZIP']) {
      const res = await send({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?category=${encoding}`, headers: { 'content-type': 'application/sarif+json', 'content-encoding': encoding }, payload: gzipSync(SARIF) });
      expect(res.statusCode, res.body).toBe(202);
    }
  });
});
