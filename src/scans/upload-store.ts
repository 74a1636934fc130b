import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, UploadRow } from '../db/schema.js';
import type { Dialect } from '../db/index.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { inFuture, now } from '../db/time.js';
import { refreshRefState } from '../results/status-store.js';
import { publishAccepted, publishCommitted } from './committed.js';
import { REMATCH_FORMAT } from '../domain/rematch.js';
import type { HandedOver } from './handed-over.js';
import type { BlobStore } from '../blobs/index.js';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Objects of deleted rows are deleted from the store this many at a time (DeleteObjects takes 1,000). */
const PRUNE_BATCH = 1000;

/** From this size on, work on an upload's bytes is kept off the event loop. */
export const LARGE_UPLOAD_BYTES = 1024 * 1024;

export type NewUpload = Pick<UploadRow, 'id' | 'repository_id' | 'format' | 'size_bytes' | 'category' | 'commit_sha' | 'ref' | 'ref_kind' | 'ref_name' | 'base_ref' | 'created_by' | 'api_key_id'>
  & { ci_token_id?: string | null } & Partial<Pick<UploadRow, 'head_sha' | 'base_sha'>>;

/** A claimed upload: `attempts` is the fencing token its worker must still hold when it commits. */
export interface ClaimedUpload {
  upload: UploadRow;
  content: Buffer;
  /** Says that nothing will read `content` again (a handed-over document's memory is used again); at most once. */
  release(): void;
}

/**
 * `handedOver`: where this instance's workers find the documents the instance accepted (the ingest
 * thread's store has one; a store without workers beside it has none and reads the database).
 * `blobs`: the object store raw bytes go to instead of `upload_contents.content` (SERVICE_BLOB_URL).
 */
export function uploadStore(db: Kysely<Database>, dialect: Dialect, handedOver?: HandedOver, blobs: BlobStore | null = null) {
  /** The document, inflated when it was kept as gzip. */
  async function storedContent(uploadId: string): Promise<Pick<ClaimedUpload, 'content' | 'release'>> {
    const handed = handedOver?.take(uploadId);
    if (handed) return handed;
    const row = await db.selectFrom('upload_contents').select(['content', 'encoding', 'blob_url']).where('upload_id', '=', uploadId).executeTakeFirst();
    let stored = row?.content ?? Buffer.alloc(0);
    if (row?.blob_url) {
      if (!blobs) throw new Error(`The upload's bytes are in object storage (${row.blob_url}), but SERVICE_BLOB_URL is not set.`);
      stored = await blobs.get(row.blob_url);
    }
    const content = row?.encoding === 'gzip' ? await gunzipAsync(stored) : stored;
    return { content, release: () => undefined };
  }

  /**
   * Deletes the objects whose rows are gone (recorded by a trigger as they go: migration 0041), a
   * batch at a time, objects first: a store that fails midway leaves the record, and the next round
   * deletes them again (deleting one already gone is no error).
   */
  async function deleteForgottenObjects(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const rows = await db.selectFrom('blob_deletions').select('url').orderBy('url').limit(PRUNE_BATCH).execute();
      if (rows.length === 0) return deleted;
      const urls = rows.map((r) => r.url);
      await blobs!.delete(urls);
      await db.deleteFrom('blob_deletions').where('url', 'in', urls).execute();
      deleted += rows.length;
      if (rows.length < PRUNE_BATCH) return deleted;
    }
  }

  return {
    /**
     * The row and the bytes in one transaction: once this returns, the upload cannot be lost. The
     * document (`content`) is kept as the gzip it arrived as (`arrivedAs`), else compressed here, on
     * libuv's thread pool, at the fastest level: a 33 MiB SARIF compresses to a twelfth in about
     * 0.1 s. PostgreSQL took half a second to store it inflated, and SQLite, whose writes run on the
     * event loop, held it for 0.19 s (0.01 s compressed). A small document on SQLite is kept as it
     * is: storing it costs less than the trip to the thread pool and back. `sha256` is the document's,
     * worked out as it arrived (DocumentBuffer).
     *
     * With an object store, the gzip goes there first, complete, and only then is the upload
     * recorded: a store that fails throws BlobUnavailableError and nothing is recorded; a record that
     * fails leaves an object nobody points at, deleted here when the store still answers.
     */
    async insert(upload: NewUpload & Pick<UploadRow, 'sha256'>, content: Buffer, arrivedAs: Buffer | null = null): Promise<UploadRow> {
      const compress = blobs !== null || dialect === 'postgres' || content.length >= LARGE_UPLOAD_BYTES;
      const gzip = arrivedAs ?? (compress ? await gzipAsync(content, { level: 1 }) : null);
      const blobUrl = blobs ? blobs.urlFor(upload.id) : null;
      if (blobs && blobUrl) await blobs.put(blobUrl, gzip!, 'application/gzip');
      try {
        return await db.transaction().execute(async (trx) => {
          const row = await trx.insertInto('uploads')
            .values({ ...upload, status: 'pending', created_at: now() })
            .returningAll().executeTakeFirstOrThrow();
          await trx.insertInto('upload_contents').values({
            upload_id: upload.id, content: blobUrl ? Buffer.alloc(0) : gzip ?? content, encoding: gzip ? 'gzip' : null, blob_url: blobUrl,
          }).execute();
          await refreshRefState(trx, row, { lastUploadAt: row.created_at });
          await publishAccepted(trx, row);
          return row;
        });
      } catch (error) {
        if (blobs && blobUrl) await blobs.delete([blobUrl]).catch(() => undefined);
        throw error;
      }
    },

    byId(id: string): Promise<UploadRow | undefined> {
      return db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** A repository's uploads, newest first; only one ref's when `ref` is given. */
    page(repositoryId: string, page: Page, ref?: { kind: string; name: string }): Promise<Paged<UploadRow>> {
      // What pipelines sent: a re-match job shares the queue but is no upload.
      let filtered = db.selectFrom('uploads').where('repository_id', '=', repositoryId).where('format', '<>', REMATCH_FORMAT);
      if (ref) filtered = filtered.where('ref_kind', '=', ref.kind).where('ref_name', '=', ref.name);
      return paginate(filtered, page, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'));
    },

    /**
     * Takes the oldest upload that is pending, or processing under a lease that ran out (its worker
     * died). On PostgreSQL, SKIP LOCKED lets any number of workers claim side by side.
     */
    async claim(leaseMs: number): Promise<ClaimedUpload | undefined> {
      const at = now();
      const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
      const claimed = await db.transaction().execute(async (trx) => {
        const result = await sql<UploadRow>`
          update uploads set status = 'processing', attempts = attempts + 1, lease_until = ${inFuture(leaseMs)}, started_at = ${at}
          where id = (
            select id from uploads
            where status = 'pending' or (status = 'processing' and lease_until < ${at})
            order by created_at, id limit 1 ${lock}
          )
          returning *`.execute(trx);
        const upload = result.rows[0];
        if (upload) await refreshRefState(trx, upload, {});
        return upload;
      });
      if (!claimed) return undefined;
      try {
        return { upload: claimed, ...(await storedContent(claimed.id)) };
      } catch (error) {
        // The bytes could not be read (the object store is out): the claim is given back as it was,
        // not counted as an attempt, so an outage never uses up an upload's attempts.
        await db.updateTable('uploads').set({ status: 'pending', lease_until: null, attempts: sql<number>`attempts - 1` })
          .where('id', '=', claimed.id).where('status', '=', 'processing').where('attempts', '=', claimed.attempts)
          .execute();
        throw error;
      }
    },

    /** Keeps a long job's claim alive; false when the claim was lost to another worker. */
    async renewLease(upload: UploadRow, leaseMs: number): Promise<boolean> {
      const result = await db.updateTable('uploads').set({ lease_until: inFuture(leaseMs) })
        .where('id', '=', upload.id).where('status', '=', 'processing').where('attempts', '=', upload.attempts)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async fail(upload: UploadRow, reason: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await holdsClaim(trx, upload, dialect))) return;
        await trx.updateTable('uploads').set({ status: 'failed', error: reason, completed_at: now(), lease_until: null })
          .where('id', '=', upload.id).execute();
        await refreshRefState(trx, upload, {});
        await publishCommitted(trx, dialect, { outcome: 'failed', upload, reason });
      });
    },

    /** Gives a claim back untouched (on shutdown), so another worker takes it at once. */
    async release(upload: UploadRow): Promise<void> {
      await db.updateTable('uploads').set({ status: 'pending', lease_until: null })
        .where('id', '=', upload.id).where('status', '=', 'processing').where('attempts', '=', upload.attempts)
        .execute();
    },

    async queueStats(): Promise<{ pending: number; oldestPendingAt: string | null }> {
      const row = await db.selectFrom('uploads')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
        .where('status', 'in', ['pending', 'processing']).executeTakeFirstOrThrow();
      return { pending: Number(row.n), oldestPendingAt: (row.oldest as string | null) ?? null };
    },

    /**
     * Drops the stored bytes of completed uploads older than the retention; results stay. From the
     * bytes still kept (the retention's worth) to their uploads: the other way round read every
     * upload ever completed, every hour.
     */
    /** Deletes the raw bytes of uploads completed before `olderThan` (their objects go with the next `deleteForgottenObjects`). */
    async pruneContents(olderThan: string): Promise<number> {
      const result = await db.deleteFrom('upload_contents')
        .where((eb) => eb.exists(eb.selectFrom('uploads').select('uploads.id').whereRef('uploads.id', '=', 'upload_contents.upload_id')
          .where('uploads.status', '=', 'complete').where('uploads.completed_at', '<', olderThan)))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Objects of deleted rows, whatever deleted them (retention, a repository or organisation deleted), deleted from the store. */
    deleteForgottenObjects: async (): Promise<number> => (blobs ? deleteForgottenObjects() : 0),
  };
}
export type UploadStore = ReturnType<typeof uploadStore>;

/**
 * Locks the upload row (PostgreSQL) and checks this worker still owns it: a worker whose lease ran
 * out and was overtaken must not commit a second time.
 */
export async function holdsClaim(trx: Transaction<Database>, upload: UploadRow, dialect: Dialect): Promise<boolean> {
  let query = trx.selectFrom('uploads').select(['status', 'attempts']).where('id', '=', upload.id);
  if (dialect === 'postgres') query = query.forUpdate();
  const current = await query.executeTakeFirst();
  return current?.status === 'processing' && current.attempts === upload.attempts;
}
