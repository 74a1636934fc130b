import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/**
 * An S3-compatible object store for tests: s3rver (the S3 REST API over a folder), in process on
 * 127.0.0.1, with the bucket `bucket` made. Its credentials are S3rver's own (access key and secret
 * `S3RVER`, which it checks signatures against), given to the service the way production gives
 * them, through the AWS SDK's chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
 *
 * Listings here stay within one page, so s3rver's continuation tokens (DES, which needs Node's
 * --openssl-legacy-provider) are never made.
 */
export interface TestObjectStore {
  endpoint: string;
  bucket: string;
  /** The keys in the bucket. */
  keys(): Promise<string[]>;
  /** From the `parts`+1-th part of a multipart upload on, connections are cut and the server stops listening. */
  refuseAfterParts(parts: number): void;
  /** Parts received since the start (UploadPart requests). */
  parts(): number;
  stop(): Promise<void>;
  /** Starts again on the same port and folder (after stop or a refusal). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Stops listening and cuts every connection, kept-alive ones too: a client's next request finds nobody. */
async function halt(instance: S3rver): Promise<void> {
  const closed = instance.close().catch(() => undefined);
  instance.httpServer?.closeAllConnections();
  await closed;
}

export async function startObjectStore(bucket = 'scanyard'): Promise<TestObjectStore> {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  let port = 0;
  let server: S3rver | null = null;
  let running = false;
  let parts = 0;
  let refuseAfter = Infinity;

  const start = async () => {
    const instance = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: bucket }] });
    // Ahead of s3rver's own routes: counts parts, and cuts the connection once told to refuse.
    instance.middleware.unshift(async (ctx, next) => {
      if (ctx.method === 'PUT' && ctx.query.partNumber !== undefined && ++parts > refuseAfter) {
        ctx.req.socket.destroy();
        if (running) {
          running = false;
          void halt(instance);
        }
        return;
      }
      await next();
    });
    port = (await instance.run()).port;
    server = instance;
    running = true;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });

  const stop = async () => {
    if (running && server) {
      running = false;
      await halt(server);
    }
  };
  return {
    endpoint,
    bucket,
    async keys() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listed.Contents ?? []).map((o) => o.Key!).sort();
    },
    refuseAfterParts(n) {
      refuseAfter = parts + n;
    },
    parts: () => parts,
    stop,
    async start() {
      refuseAfter = Infinity;
      await stop();
      await start();
    },
    async close() {
      await stop();
      client.destroy();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
