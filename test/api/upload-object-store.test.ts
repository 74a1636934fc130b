import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { startObjectStore, type TestObjectStore } from '../support/s3.js';
import { runMaintenance } from '../../src/maintenance.js';
import { openBlobStore } from '../../src/blobs/index.js';

const MiB = 1024 * 1024;

/**
 * A SARIF 2.1.0 log of exactly `bytes` bytes with one result: the rest is random base64 in the
 * run's property bag (SARIF 2.1.0 §3.8, "Property bags"), which readers keep but need not use, so it
 * hardly compresses and the stored gzip stays far over the 5 MiB multipart threshold.
 */
function largeSarif(bytes: number, rule: string): Buffer {
  const log = JSON.parse(sarifLog([{ rule, file: 'src/app.js' }])) as { runs: { properties?: Record<string, string> }[] };
  log.runs[0]!.properties = { padding: '' };
  const frame = Buffer.byteLength(JSON.stringify(log));
  log.runs[0]!.properties.padding = randomBytes(bytes).toString('base64').slice(0, bytes - frame);
  const body = Buffer.from(JSON.stringify(log));
  expect(body.length).toBe(bytes);
  return body;
}

describe.each(DB_KINDS)('raw uploads in object storage on %s', (kind) => {
  let store: TestObjectStore;
  let t: TestApp;
  let s3: S3Client;
  let cookie: string;
  let key: string;
  let repoId: string;
  beforeAll(async () => {
    store = await startObjectStore();
    t = await createTestApp(kind, { SERVICE_BLOB_URL: `s3://${store.bucket}/raw/`, SERVICE_BLOB_ENDPOINT: store.endpoint });
    s3 = new S3Client({ endpoint: store.endpoint, forcePathStyle: true, region: 'us-east-1' });
    ({ cookie } = await t.user('owner'));
    const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'acme' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie }, payload: { name: 'api' } })).json().id;
    key = await t.apiKey(cookie, { scopes: ['upload'] });
  });
  afterAll(async () => {
    await t?.close();
    s3?.destroy();
    await store?.close();
  });

  const post = (body: Buffer | string) =>
    t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sarif+json' }, payload: body });
  const upload = async (id: string) => (await t.request({ url: `/api/v1/uploads/${id}`, headers: { cookie } })).json();
  const uploadCount = async () => (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: { cookie } })).json().length as number;
  const object = async (objectKey: string) => {
    const got = await s3.send(new GetObjectCommand({ Bucket: store.bucket, Key: objectKey }));
    return Buffer.from(await got.Body!.transformToByteArray());
  };
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('keeps the raw bytes in the bucket, gzipped under the prefix, not in the database, and ingests them from there', async () => {
    const body = sarifLog([{ rule: 'sql-injection', file: 'src/db.js' }, { rule: 'xss', file: 'src/view.js' }]);
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().id as string;
    expect(await store.keys()).toContain(`raw/uploads/${id}`);
    expect(gunzipSync(await object(`raw/uploads/${id}`)).toString()).toBe(body);
    const row = await t.db.kysely.selectFrom('upload_contents').selectAll().where('upload_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ blob_url: `s3://${store.bucket}/raw/uploads/${id}`, encoding: 'gzip' });
    expect(row.content.length).toBe(0);

    expect(await t.drain()).toBe(1);
    expect(await upload(id)).toMatchObject({ status: 'complete', counts: { new: 2, findings: 2 } });
  });

  it('sends a 64 MiB document by multipart upload, whole', async () => {
    const body = largeSarif(64 * MiB, 'big-rule');
    const partsBefore = store.parts();
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().id as string;
    // About 48 MiB of gzip: parts of 5 MiB.
    expect(store.parts() - partsBefore).toBeGreaterThanOrEqual(9);
    expect(sha256(gunzipSync(await object(`raw/uploads/${id}`)))).toBe(sha256(body));
    expect(await t.drain()).toBe(1);
    expect(await upload(id)).toMatchObject({ status: 'complete', counts: { new: 1 } });
  });

  it('answers 503 when the store stops answering in the middle of an upload, and records nothing', async () => {
    const before = { uploads: await uploadCount(), keys: await store.keys() };
    store.refuseAfterParts(2);
    const res = await post(largeSarif(20 * MiB, 'refused-rule'));
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json().detail).toMatch(/object store/);
    expect(await uploadCount()).toBe(before.uploads);
    expect(await t.db.kysely.selectFrom('upload_contents').select('upload_id').execute()).toHaveLength(before.keys.length);

    // Back up: the half-sent document never became an object, and the next upload is taken.
    await store.start();
    expect(await store.keys()).toEqual(before.keys);
    const again = await post(sarifLog([{ rule: 'sent-again', file: 'a.js' }]));
    expect(again.statusCode, again.body).toBe(202);
    expect(await t.drain()).toBe(1);
    expect(await upload(again.json().id)).toMatchObject({ status: 'complete' });
  });

  it('answers 503 while the store is down, and ingests what was acknowledged once it is back', async () => {
    const accepted = await post(sarifLog([{ rule: 'before-outage', file: 'a.js' }]));
    expect(accepted.statusCode).toBe(202);
    await store.stop();
    try {
      const refused = await post(sarifLog([{ rule: 'during-outage', file: 'a.js' }]));
      expect(refused.statusCode, refused.body).toBe(503);
      // The worker cannot read the acknowledged upload's bytes: it stays pending, its attempts unspent.
      await expect(t.drain()).rejects.toThrow();
      expect(await upload(accepted.json().id)).toMatchObject({ status: 'pending' });
    } finally {
      await store.start();
    }
    expect(await t.drain()).toBe(1);
    expect(await upload(accepted.json().id)).toMatchObject({ status: 'complete', counts: { new: 1 } });
  });

  // Before the retention test: moving Date leaves the AWS SDK with a clock offset its next request corrects.
  it('deletes the objects of a deleted repository and of a deleted organisation at the next housekeeping, and only theirs', async () => {
    const orgOf = async (name: string) => (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name } })).json().id as string;
    const repoIn = async (orgId: string, name: string) => (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie }, payload: { name } })).json().id as string;
    const uploadTo = async (repo: string) => (await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r', file: 'a.js' }]) })).json().id as string;
    const doomedOrg = await orgOf('doomed-org');
    const inDoomedOrg = await uploadTo(await repoIn(doomedOrg, 'web'));
    const keptOrg = await orgOf('kept-org');
    const doomedRepo = await repoIn(keptOrg, 'old');
    const inDoomedRepo = await uploadTo(doomedRepo);
    const kept = await uploadTo(await repoIn(keptOrg, 'new'));
    await t.drain();
    for (const id of [inDoomedOrg, inDoomedRepo, kept]) expect(await store.keys()).toContain(`raw/uploads/${id}`);

    expect((await t.request({ method: 'DELETE', url: `/api/v1/repos/${doomedRepo}`, headers: { cookie } })).statusCode).toBe(204);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/orgs/${doomedOrg}`, headers: { cookie } })).statusCode).toBe(204);
    await runMaintenance(t.app.services, t.app.log);

    const keys = await store.keys();
    expect(keys).toContain(`raw/uploads/${kept}`);
    expect(keys).not.toContain(`raw/uploads/${inDoomedRepo}`);
    expect(keys).not.toContain(`raw/uploads/${inDoomedOrg}`);
    expect(await t.db.kysely.selectFrom('blob_deletions').selectAll().execute()).toEqual([]);
  });
  it('deletes the objects of uploads past SERVICE_RAW_RETENTION_DAYS, and keeps their results', async () => {
    const res = await post(sarifLog([{ rule: 'kept-result', file: 'a.js' }]));
    const id = res.json().id as string;
    await t.drain();
    expect(await store.keys()).toContain(`raw/uploads/${id}`);
    const pending = (await post(sarifLog([{ rule: 'not-yet', file: 'a.js' }]))).json().id as string;

    // Only Date is moved (the store's clock with it: it runs in this process); timers run as usual.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 31 * 86_400_000);
      await runMaintenance(t.app.services, t.app.log);
    } finally {
      vi.useRealTimers();
    }
    // Every completed upload's object is gone; the one still waiting keeps its bytes.
    expect(await store.keys()).toEqual([`raw/uploads/${pending}`]);
    expect(await t.db.kysely.selectFrom('upload_contents').select('upload_id').execute()).toEqual([{ upload_id: pending }]);
    cookie = await t.cookieFor((await t.db.kysely.selectFrom('users').select('id').where('login', '=', 'owner').executeTakeFirstOrThrow()).id);
    expect(await upload(id)).toMatchObject({ status: 'complete', counts: { new: 1 } });
    const findings = (await t.request({ url: `/api/v1/repos/${repoId}/findings`, headers: { cookie } })).json();
    expect(findings.map((f: { rule_id: string }) => f.rule_id)).toContain('kept-result');
  });

});

describe('the migrate step and the bucket', () => {
  it('makes the bucket when it is missing, and leaves an existing one alone', async () => {
    const store = await startObjectStore('existing');
    const blobs = openBlobStore({ bucket: 'made-by-migrate', prefix: '', endpoint: store.endpoint, region: 'us-east-1' });
    try {
      expect(await blobs.ensureBucket()).toBe(true);
      expect(await blobs.ensureBucket()).toBe(false);
      await blobs.put(blobs.urlFor('u1'), Buffer.from('x'), 'application/gzip');
      expect((await blobs.get('s3://made-by-migrate/uploads/u1')).toString()).toBe('x');
    } finally {
      blobs.close();
      await store.close();
    }
  });
});
