import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { client, devLogin, postUpload, processGroup, type AcceptedUpload } from '../support/processes.js';

const MiB = 1024 * 1024;

// An instance hands the documents it accepts to its own ingest thread, which parses one of 1 MiB or
// more while the instance is still storing it: what the worker applies must be exactly that
// document, and a document that cannot be parsed must fail its upload with the reason, as always.
// The memory a document is received into is used again once the upload is stored and parsed
// (scans/document-memory.ts): a document must never be written over while anything still reads it.
describe('large uploads through the ingest thread (SQLite)', () => {
  const procs = processGroup();
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    await procs.killAll();
    for (const database of databases) await database.drop();
  });

  /** A server on a database of its own (two on one SQLite file would take each other's uploads), with a repository and an upload key. */
  async function uploadServer(name: string) {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const serve = await procs.start('serve', { name, env: { DATABASE_URL: database.url, SERVICE_WORKERS: '1' } });
    const url = serve.url!;
    const { cookie } = await devLogin(url);
    const api = client(url, cookie);
    const org = await api.post<{ id: string }>('/api/v1/orgs', { name });
    const repo = await api.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const { key } = await api.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    const file = (database.config as { file: string }).file;
    return {
      file,
      post: (body: string | Buffer, category: string) => postUpload(url, key, repo.id, body, category),
      settled: async (id: string) => {
        const res = await fetch(`${url}/api/v1/uploads/${id}?wait=30`, { headers: { authorization: `Bearer ${key}` } });
        return (await res.json()) as { status: string; error: string | null; counts: { new: number; fixed: number } };
      },
      /** A page of the findings an upload introduced, and their total. */
      introduced: async (uploadId: string, page: number) => {
        const res = await fetch(`${url}/api/v1/repos/${repo.id}/findings?introduced_in=${uploadId}&per_page=100&page=${page}`, { headers: { cookie } });
        return { total: res.headers.get('x-total-count'), items: (await res.json()) as { rule_id: string; file_path: string }[] };
      },
      /** Each upload's document as stored (inflated) must be exactly the one sent, with the SHA-256 the upload reported. */
      expectStored: (sent: [AcceptedUpload, string][]) => {
        const stored = new Database(file, { readonly: true });
        try {
          for (const [upload, document] of sent) {
            const row = stored.prepare('select content, encoding from upload_contents where upload_id = ?').get(upload.id) as { content: Buffer; encoding: string | null };
            expect((row.encoding === 'gzip' ? gunzipSync(row.content) : row.content).equals(Buffer.from(document))).toBe(true);
            expect(upload.sha256).toBe(createHash('sha256').update(document).digest('hex'));
          }
        } finally {
          stored.close();
        }
      },
    };
  }

  it('applies each large document to its own upload, and fails one that cannot be parsed with the reason', async () => {
    const server = await uploadServer('large');

    // Two large documents in a row, to two analyses (categories): neither may get the other's results.
    const first = sarifLog(Array.from({ length: 6000 }, (_, i) => ({ rule: `R${i % 40}`, file: `src/first/${i}.ts`, message: `first ${'x'.repeat(150)}` })));
    const second = sarifLog(Array.from({ length: 7000 }, (_, i) => ({ rule: `S${i % 40}`, file: `src/second/${i}.ts`, message: `second ${'y'.repeat(150)}` })));
    expect(first.length).toBeGreaterThan(MiB);
    expect(second.length).toBeGreaterThan(MiB);
    const [a, b] = [await server.post(first, 'first'), await server.post(second, 'second')];
    expect(await server.settled(a.id)).toMatchObject({ status: 'complete', counts: { new: 6000 } });
    expect(await server.settled(b.id)).toMatchObject({ status: 'complete', counts: { new: 7000 } });
    // No commit checkpoints in this process (scans/ingest-thread.ts): the ingest thread's timer moves
    // the write-ahead log, which now holds both uploads' findings, into the database file.
    await expect.poll(() => fs.statSync(server.file).size, { timeout: 5000, interval: 100 }).toBeGreaterThan(8 * MiB);
    const page = await server.introduced(b.id, 1);
    expect(page.total).toBe('7000');
    expect(page.items.length).toBe(100);
    expect(page.items.every((f) => f.rule_id.startsWith('S') && f.file_path.startsWith('src/second/'))).toBe(true);

    // Both documents' memory is now kept for the next ones: each of these is received into it, one
    // plain and one as gzip (whose bytes sent are kept too), and must be stored and applied as
    // exactly itself.
    const third = sarifLog(Array.from({ length: 6500 }, (_, i) => ({ rule: `T${i % 40}`, file: `src/third/${i}.ts`, message: `third ${'t'.repeat(150)}` })));
    const fourth = sarifLog(Array.from({ length: 5500 }, (_, i) => ({ rule: `U${i % 40}`, file: `src/fourth/${i}.ts`, message: `fourth ${'u'.repeat(150)}` })));
    const c = await server.post(third, 'third');
    expect(await server.settled(c.id)).toMatchObject({ status: 'complete', counts: { new: 6500 } });
    const d = await server.post(gzipSync(fourth), 'fourth');
    expect(await server.settled(d.id)).toMatchObject({ status: 'complete', counts: { new: 5500 } });
    for (const [upload, prefix, count] of [[c, 'src/third/', 6500], [d, 'src/fourth/', 5500]] as const) {
      const later = await server.introduced(upload.id, 5);
      expect(later.total).toBe(String(count));
      expect(later.items.every((f) => f.file_path.startsWith(prefix))).toBe(true);
    }
    server.expectStored([[a, first], [b, second], [c, third], [d, fourth]]);

    const broken = JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: 'not a list', padding: 'z'.repeat(MiB) });
    const failed = await server.settled((await server.post(broken, 'broken')).id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/runs/);
  }, 60_000);

  it('keeps every document of large uploads sent at once, over memory used again, exactly as sent', async () => {
    const server = await uploadServer('at-once');
    // Two waves of six, the second sent once an upload of the first is complete, while the rest of
    // it still wait for the one worker to parse and ingest them in turn: memory given back before
    // the worker read it would be written over by the second wave (the ingest thread letting a
    // document go when it keeps it, instead of once it parsed it, failed this every time).
    const sent: { wave: number; n: number; results: number; document: string; upload: AcceptedUpload }[] = [];
    for (const wave of [1, 2]) {
      const documents = Array.from({ length: 6 }, (_, n) => sarifLog(Array.from({ length: 8000 + 400 * n }, (_, i) => ({
        rule: `W${wave}D${n}-${i % 30}`, file: `src/w${wave}/d${n}/${i}.ts`, message: `wave ${wave} document ${n} ${'m'.repeat(160)}`,
      }))));
      const accepted = await Promise.all(documents.map((document, n) => server.post(n % 2 ? gzipSync(document) : document, `w${wave}d${n}`)));
      sent.push(...documents.map((document, n) => ({ wave, n, results: 8000 + 400 * n, document, upload: accepted[n]! })));
      await server.settled(accepted[0]!.id);
    }
    for (const { wave, n, results, upload } of sent) {
      expect(await server.settled(upload.id)).toMatchObject({ status: 'complete', counts: { new: results } });
      expect((await server.introduced(upload.id, 3)).items.every((f) => f.file_path.startsWith(`src/w${wave}/d${n}/`))).toBe(true);
    }
    server.expectStored(sent.map(({ upload, document }) => [upload, document]));
  }, 90_000);
});
