import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { startAdvisorySync, syncSource } from '../../src/advisories/sync.js';
import { sourceStore } from '../../src/advisories/sources-store.js';
import { advisorySyncOptions } from '../../src/services.js';
import { refuseAdvisory } from '../support/osv.js';

const RECORD = {
  schema_version: '1.6.0', id: 'GHSA-c2qf-rxjj-qqgw', modified: '2024-01-05T00:00:00Z', aliases: ['CVE-2022-25883'],
  summary: 'semver vulnerable to Regular Expression Denial of Service',
  affected: [{ package: { ecosystem: 'npm', name: 'semver' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '7.0.0' }, { fixed: '7.5.2' }] }] }],
  database_specific: { severity: 'MODERATE' },
};

/** A mirror as a CDN serves OSV's all.zip: an ETag, and 304 when the client already has that copy. */
function mirror() {
  const state = { body: Buffer.from(zipSync({ 'GHSA-c2qf-rxjj-qqgw.json': strToU8(JSON.stringify(RECORD)) })), etag: '"v1"', seen: [] as http.IncomingHttpHeaders[] };
  const server = http.createServer((request, response) => {
    state.seen.push(request.headers);
    if (request.headers['if-none-match'] === state.etag) {
      response.writeHead(304, { etag: state.etag }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/zip', etag: state.etag, 'last-modified': 'Fri, 05 Jan 2024 00:00:00 GMT' }).end(state.body);
  });
  return { server, state };
}

describe.each(DB_KINDS)('advisory sync on %s', (kind) => {
  let t: TestApp;
  let url: string;
  const { server, state } = mirror();
  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/npm/all.zip`;
    t = await createTestApp(kind, { SERVICE_ADVISORY_SOURCES: url, SERVICE_ADVISORY_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((done) => server.close(done));
  });

  const sources = async () => {
    const { cookie } = await t.user('root', { admin: true });
    const res = await t.request({ url: '/api/v1/advisories/sources', headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ url: string; etag: string | null; last_modified: string | null; synced_at: string | null; last_error: string | null; counts: { added: number } }[]>();
  };
  const advisoryCount = async () => Number((await t.db.kysely.selectFrom('advisories').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('imports a source, then sends its ETag and changes nothing on 304', async () => {
    expect(await sources()).toEqual([{ url, etag: null, last_modified: null, checked_at: null, synced_at: null, last_error: null, counts: { added: 0, updated: 0, withdrawn: 0, unchanged: 0, rejected: 0 } }]);
    const options = advisorySyncOptions(t.config);
    expect(await syncSource(t.db.kysely, url, options)).toBe('imported');
    expect(await advisoryCount()).toBe(1);
    const [first] = await sources();
    expect(first).toMatchObject({ etag: '"v1"', last_modified: 'Fri, 05 Jan 2024 00:00:00 GMT', last_error: null, counts: { added: 1 } });
    expect(first!.synced_at).not.toBeNull();

    expect(await syncSource(t.db.kysely, url, options)).toBe('not-modified');
    expect(state.seen.at(-1)).toMatchObject({ 'if-none-match': '"v1"', 'if-modified-since': 'Fri, 05 Jan 2024 00:00:00 GMT' });
    const [second] = await sources();
    expect(second).toMatchObject({ etag: '"v1"', synced_at: first!.synced_at, counts: { added: 1 } });
    expect(await advisoryCount()).toBe(1);
  });

  it('reports a corrupt zip on the source and keeps the advisories it had', async () => {
    state.body = Buffer.from('PK\u0003\u0004 truncated in transit');
    state.etag = '"v2"';
    expect(await syncSource(t.db.kysely, url, advisorySyncOptions(t.config))).toBe('failed');
    const [source] = await sources();
    expect(source).toMatchObject({ etag: '"v1"', last_error: expect.stringMatching(/zip cannot be read/) });
    expect(await advisoryCount()).toBe(1);
    const res = await t.request({ url: '/api/v1/advisories/CVE-2022-25883', headers: { cookie: (await t.user('reader')).cookie } });
    expect(res.json()).toMatchObject({ id: 'GHSA-c2qf-rxjj-qqgw', severity: 'medium' });
  });

  it('lets one instance at a time fetch a source', async () => {
    const held = await sourceStore(t.db.kysely).take(url, 60_000);
    expect(held).toBeDefined();
    const requests = state.seen.length;
    expect(await syncSource(t.db.kysely, url, advisorySyncOptions(t.config))).toBe('busy');
    expect(state.seen.length).toBe(requests);
    await sourceStore(t.db.kysely).finish(url, held!.lease_token, {});
  });

  it('refuses a source on a private address unless SERVICE_ADVISORY_ALLOW_PRIVATE', async () => {
    expect(await syncSource(t.db.kysely, url, { ...advisorySyncOptions(t.config), allowPrivate: false })).toBe('failed');
    expect((await sources())[0]!.last_error).toMatch(/refused: 127\.0\.0\.1 is not a public address/);
  });

  it('logs a source without the secret in its query string', async () => {
    const lines: object[] = [];
    const log = { info: (entry: object) => lines.push(entry), warn: (entry: object) => lines.push(entry) };
    const stop = startAdvisorySync(t.db.kysely, [`${url}?token=mirror-secret&ecosystem=npm`], 3_600_000, advisorySyncOptions(t.config), log);
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    await stop();
    expect(lines[0]).toMatchObject({ url: `${url}?token=[redacted]&ecosystem=npm` });
    expect(JSON.stringify(lines)).not.toContain('mirror-secret');
  });

  it('records on the source why an import failed, whatever failed, and lets the source go', async () => {
    state.body = Buffer.from(JSON.stringify([{ ...RECORD, id: 'GHSA-refused' }]));
    state.etag = '"v3"';
    const allow = await refuseAdvisory(t.db.kysely, 'GHSA-refused');
    try {
      await expect(syncSource(t.db.kysely, url, advisorySyncOptions(t.config))).rejects.toThrow(/refused by the test/);
    } finally {
      await allow();
    }
    const [source] = await sources();
    expect(source).toMatchObject({ etag: '"v1"', last_error: expect.stringMatching(/^the import failed: .*refused by the test/) });
    // The next round takes the source again and imports it.
    expect(await syncSource(t.db.kysely, url, advisorySyncOptions(t.config))).toBe('imported');
    expect((await sources())[0]).toMatchObject({ etag: '"v3"', last_error: null, counts: { added: 1 } });
  });

  it('shows the sources to site administrators only', async () => {
    const res = await t.request({ url: '/api/v1/advisories/sources', headers: { cookie: (await t.user('someone')).cookie } });
    expect(res.statusCode).toBe(403);
  });
});
