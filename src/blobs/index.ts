import { CreateBucketCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, NoSuchKey, NotFound, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobConfig } from '../config.js';

/**
 * From this size on (as stored) an object goes up by multipart upload, in parts of this size: S3's
 * smallest part, so at most `QUEUE` parts (20 MiB) are in flight beside the document, and a failed
 * part is sent again alone rather than the whole document.
 */
export const MULTIPART_BYTES = 5 * 1024 * 1024;
const QUEUE = 4;
/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;

/** The object store could not take, give or delete an object: an outage, not the caller's fault. */
export class BlobUnavailableError extends Error {
  override readonly name = 'BlobUnavailableError';
}

/** Raw upload bytes kept in object storage, addressed by `s3://bucket/key` URLs (what the database records). */
export interface BlobStore {
  /** The URL an upload's bytes are kept at. */
  urlFor(uploadId: string): string;
  /** Stores `body` at `url`; once this returns, the object is complete (never a part of it). */
  put(url: string, body: Buffer, contentType: string): Promise<void>;
  get(url: string): Promise<Buffer>;
  /** Deletes the objects; one already gone is not an error. */
  delete(urls: readonly string[]): Promise<void>;
  /** Makes the bucket when it does not exist yet (`migrate` does, once); true when it made it. */
  ensureBucket(): Promise<boolean>;
  close(): void;
}

export function openBlobStore(config: BlobConfig): BlobStore {
  const client = new S3Client({
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    ...(config.region ? { region: config.region } : {}),
    // Checksums only where S3 requires them (DeleteObjects): S3-compatible stores that predate the
    // SDK's default CRC32 trailers keep an aws-chunked body as sent, trailer and all.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });

  const where = (url: string) => {
    const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(url);
    if (!match) throw new Error(`not an s3:// object URL: ${url}`);
    return { Bucket: match[1]!, Key: match[2]! };
  };
  const unavailable = (what: string, error: unknown) =>
    new BlobUnavailableError(`${what} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, { cause: error });

  return {
    urlFor: (uploadId) => `s3://${config.bucket}/${config.prefix ? `${config.prefix}/` : ''}uploads/${uploadId}`,

    async put(url, body, contentType) {
      // Upload sends a body of one part as a single PutObject, and a larger one part by part,
      // slicing the buffer rather than copying it. Parts of a failed upload are aborted.
      const upload = new Upload({ client, params: { ...where(url), Body: body, ContentType: contentType }, partSize: MULTIPART_BYTES, queueSize: QUEUE, leavePartsOnError: false });
      try {
        await upload.done();
      } catch (error) {
        throw unavailable(`storing ${url}`, error);
      }
    },

    async get(url) {
      try {
        const object = await client.send(new GetObjectCommand(where(url)));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (error) {
        if (error instanceof NoSuchKey) throw new Error(`${url} is not in the object store`, { cause: error });
        throw unavailable(`reading ${url}`, error);
      }
    },

    async delete(urls) {
      const byBucket = new Map<string, string[]>();
      for (const url of urls) {
        const { Bucket, Key } = where(url);
        byBucket.set(Bucket, [...(byBucket.get(Bucket) ?? []), Key]);
      }
      for (const [bucket, keys] of byBucket) {
        for (let i = 0; i < keys.length; i += DELETE_BATCH) {
          const batch = keys.slice(i, i + DELETE_BATCH);
          try {
            const result = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
            const failed = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
            if (failed.length) throw new Error(`${failed.length} objects were not deleted, first ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message}`);
          } catch (error) {
            throw unavailable(`deleting ${batch.length} objects from ${bucket}`, error);
          }
        }
      }
    },

    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: config.bucket }));
        return false;
      } catch (error) {
        if (!(error instanceof NotFound) && (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404) throw error;
      }
      await client.send(new CreateBucketCommand({ Bucket: config.bucket }));
      return true;
    },

    close: () => client.destroy(),
  };
}
