import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { sourceStore, type SourceOutcome } from './sources-store.js';
import { now } from '../db/time.js';
import { guardedGet, GetError, type GetRequest, type GetResponse } from '../net/get.js';
import { redactUrl } from '../net/redact-url.js';
import { importDocuments } from './service.js';
import { DocumentsError, type ZipLimits } from './documents.js';

export interface SyncOptions {
  allowPrivate: boolean;
  /** Bytes a source may send. */
  maxBytes: number;
  limits: ZipLimits;
  timeoutMs: number;
  /** How long one instance holds a source while fetching and importing it. */
  leaseMs: number;
  /** The HTTP GET; tests keep the real one and point it at a local server. */
  get?: (request: GetRequest) => Promise<GetResponse>;
}

export type SyncOutcome = 'imported' | 'not-modified' | 'failed' | 'busy';

/**
 * Fetches one source if no other instance is doing so (a lease on its row), sending the ETag and
 * Last-Modified of the last good copy. 304 changes nothing; a 200 is imported like a file; anything
 * that cannot be fetched or read is recorded on the source as its last error, and the advisories
 * from earlier copies stay as they were.
 */
export async function syncSource(db: Kysely<Database>, url: string, options: SyncOptions): Promise<SyncOutcome> {
  const sources = sourceStore(db);
  const source = await sources.take(url, options.leaseMs);
  if (!source) return 'busy';
  const finish = (outcome: SourceOutcome) => sources.finish(url, source.lease_token, outcome);
  const headers: Record<string, string> = { accept: 'application/zip, application/json, text/csv, application/gzip' };
  if (source.etag) headers['if-none-match'] = source.etag;
  if (source.last_modified) headers['if-modified-since'] = source.last_modified;
  let response: GetResponse;
  try {
    response = await (options.get ?? guardedGet)({ url, headers, timeoutMs: options.timeoutMs, maxBytes: options.maxBytes, allowPrivate: options.allowPrivate });
  } catch (error) {
    if (!(error instanceof GetError)) throw error;
    await finish({ last_error: error.message });
    return 'failed';
  }
  if (response.status === 304) {
    await finish({ last_error: null });
    return 'not-modified';
  }
  if (response.status !== 200) {
    await finish({ last_error: `the source answered HTTP ${response.status}` });
    return 'failed';
  }
  let report;
  try {
    report = await importDocuments(db, response.body, fileName(url), options.limits);
  } catch (error) {
    // The validators stay those of the last good copy, so the next round fetches again; the error
    // is the source's to show, whatever failed (a later batch's database error too: the batches
    // saved before it stay, their re-matches queued).
    await finish({ last_error: error instanceof DocumentsError ? error.message : `the import failed: ${(error as Error).message}` });
    if (!(error instanceof DocumentsError)) throw error;
    return 'failed';
  }
  await finish({
    etag: header(response, 'etag'), last_modified: header(response, 'last-modified'), synced_at: now(), last_error: null,
    added: report.added, updated: report.updated, withdrawn: report.withdrawn, unchanged: report.unchanged, rejected: report.rejected_total,
  });
  return 'imported';
}

function header(response: GetResponse, name: string): string | null {
  const value = response.headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function fileName(url: string): string {
  return new URL(url).pathname.split('/').pop() || url;
}

/** Every configured source in turn, at start and then every `everyMs`; returns a stop function. */
export function startAdvisorySync(
  db: Kysely<Database>, urls: string[], everyMs: number, options: SyncOptions, log: { info(o: object, m: string): void; warn(o: object, m: string): void },
): () => Promise<void> {
  let running: Promise<void> | null = null;
  const round = () => {
    running ??= (async () => {
      for (const url of urls) {
        try {
          const outcome = await syncSource(db, url, options);
          log.info({ url: redactUrl(url), outcome }, 'advisory source synced');
        } catch (error) {
          log.warn({ err: error, url: redactUrl(url) }, 'advisory source sync failed; will try again');
        }
      }
    })().finally(() => {
      running = null;
    });
  };
  const first = setTimeout(round, 0);
  const timer = setInterval(round, everyMs).unref();
  // Stopping waits for a round under way, so the database is not closed beneath it.
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
