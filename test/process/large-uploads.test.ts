import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { client, devLogin, postUpload, processGroup } from '../support/processes.js';

const MiB = 1024 * 1024;

// An instance hands the documents it accepts to its own ingest thread, which parses one of 1 MiB or
// more while the instance is still storing it: what the worker applies must be exactly that
// document, and a document that cannot be parsed must fail its upload with the reason, as always.
describe('large uploads through the ingest thread (SQLite)', () => {
  const procs = processGroup();
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await procs.killAll();
    await database?.drop();
  });

  it('applies each large document to its own upload, and fails one that cannot be parsed with the reason', async () => {
    const serve = await procs.start('serve', { name: 'serve', env: { DATABASE_URL: database.url, SERVICE_WORKERS: '1' } });
    const { cookie } = await devLogin(serve.url!);
    const api = client(serve.url!, cookie);
    const org = await api.post<{ id: string }>('/api/v1/orgs', { name: 'large' });
    const repo = await api.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const { key } = await api.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    const settled = async (id: string) => {
      const res = await fetch(`${serve.url}/api/v1/uploads/${id}?wait=30`, { headers: { authorization: `Bearer ${key}` } });
      return (await res.json()) as { status: string; error: string | null; counts: { new: number; fixed: number } };
    };

    // Two large documents in a row, to two analyses (categories): neither may get the other's results.
    const first = sarifLog(Array.from({ length: 6000 }, (_, i) => ({ rule: `R${i % 40}`, file: `src/first/${i}.ts`, message: `first ${'x'.repeat(150)}` })));
    const second = sarifLog(Array.from({ length: 7000 }, (_, i) => ({ rule: `S${i % 40}`, file: `src/second/${i}.ts`, message: `second ${'y'.repeat(150)}` })));
    expect(first.length).toBeGreaterThan(MiB);
    expect(second.length).toBeGreaterThan(MiB);
    const [a, b] = [await postUpload(serve.url!, key, repo.id, first, 'first'), await postUpload(serve.url!, key, repo.id, second, 'second')];
    expect(await settled(a.id)).toMatchObject({ status: 'complete', counts: { new: 6000 } });
    expect(await settled(b.id)).toMatchObject({ status: 'complete', counts: { new: 7000 } });
    // No commit checkpoints in this process (scans/ingest-thread.ts): the ingest thread's timer moves
    // the write-ahead log, which now holds both uploads' findings, into the database file.
    const file = (database.config as { file: string }).file;
    await expect.poll(() => fs.statSync(file).size, { timeout: 5000, interval: 100 }).toBeGreaterThan(8 * MiB);
    const page = await fetch(`${serve.url}/api/v1/repos/${repo.id}/findings?introduced_in=${b.id}&per_page=100`, { headers: { cookie } });
    expect(page.headers.get('x-total-count')).toBe('7000');
    const items = (await page.json()) as { rule_id: string; file_path: string }[];
    expect(items.length).toBe(100);
    expect(items.every((f) => f.rule_id.startsWith('S') && f.file_path.startsWith('src/second/'))).toBe(true);

    // Both documents' memory is now kept for the next ones (scans/document-memory.ts): each of these
    // is received into it, one plain and one as gzip (whose bytes sent are kept too), and must be
    // stored and applied as exactly itself.
    const third = sarifLog(Array.from({ length: 6500 }, (_, i) => ({ rule: `T${i % 40}`, file: `src/third/${i}.ts`, message: `third ${'t'.repeat(150)}` })));
    const fourth = sarifLog(Array.from({ length: 5500 }, (_, i) => ({ rule: `U${i % 40}`, file: `src/fourth/${i}.ts`, message: `fourth ${'u'.repeat(150)}` })));
    const c = await postUpload(serve.url!, key, repo.id, third, 'third');
    expect(await settled(c.id)).toMatchObject({ status: 'complete', counts: { new: 6500 } });
    const d = await postUpload(serve.url!, key, repo.id, gzipSync(fourth), 'fourth');
    expect(await settled(d.id)).toMatchObject({ status: 'complete', counts: { new: 5500 } });
    for (const [upload, prefix, count] of [[c, 'src/third/', 6500], [d, 'src/fourth/', 5500]] as const) {
      const res = await fetch(`${serve.url}/api/v1/repos/${repo.id}/findings?introduced_in=${upload.id}&per_page=100&page=5`, { headers: { cookie } });
      expect(res.headers.get('x-total-count')).toBe(String(count));
      expect(((await res.json()) as { file_path: string }[]).every((f) => f.file_path.startsWith(prefix))).toBe(true);
    }
    const stored = new Database(file, { readonly: true });
    try {
      for (const [upload, document] of [[a, first], [b, second], [c, third], [d, fourth]] as const) {
        const row = stored.prepare('select content, encoding from upload_contents where upload_id = ?').get(upload.id) as { content: Buffer; encoding: string | null };
        const content = row.encoding === 'gzip' ? gunzipSync(row.content) : row.content;
        expect(content.equals(Buffer.from(document))).toBe(true);
        expect(upload.sha256).toBe(createHash('sha256').update(document).digest('hex'));
      }
    } finally {
      stored.close();
    }

    const broken = JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: 'not a list', padding: 'z'.repeat(MiB) });
    const failed = await settled((await postUpload(serve.url!, key, repo.id, broken, 'broken')).id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/runs/);
  }, 60_000);
});
