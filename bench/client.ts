import { request } from 'node:http';
import { Worker } from 'node:worker_threads';

// The benchmark's clients run in worker threads, apart from the event loop of the server they
// measure (which runs in the benchmark's own process), as a CI job runs on another machine. A
// worker loads its module afresh from disk: this one imports nothing of the server's.

export interface UploadJob {
  origin: string;
  key: string;
  repoId: string;
  body: Uint8Array;
  contentType: string;
  /** How long to wait before sending. */
  delayMs?: number;
}

export interface TimedUpload {
  /** From the first byte sent to the upload read as `complete`. */
  seconds: number;
  upload: Record<string, unknown>;
}

/** From the first byte sent to `complete`, measured by a client in a thread of its own (see timedUpload). */
export function timeUpload(server: { origin: string; key: string }, repoId: string, body: Uint8Array): Promise<TimedUpload> {
  return uploadInWorker({ origin: server.origin, key: server.key, repoId, body, contentType: 'application/octet-stream' });
}

/**
 * The document in shared memory: a client thread given it sends it with no copy of its own, which
 * would otherwise count in the peak memory measured beside the upload.
 */
export function shared(body: Uint8Array): Uint8Array<SharedArrayBuffer> {
  const copy = new Uint8Array(new SharedArrayBuffer(body.length));
  copy.set(body);
  return copy;
}

/** timedUpload in a worker thread; `onStart` runs once the worker is ready to send (before any delay). */
export function uploadInWorker(job: UploadJob, onStart?: () => void): Promise<TimedUpload> {
  return inWorker<TimedUpload>(import.meta.url, 'timedUpload', job, onStart);
}

/**
 * Runs in a worker thread (see inWorker): after `delayMs`, POSTs the document and polls the upload
 * every 10 ms until it is complete. The document goes to the socket as it is: `fetch` first copies
 * a body it is given whole, which took about 0.3 s of a 33 MiB upload before its first byte left.
 * @public the worker imports it by name.
 */
export async function timedUpload(job: UploadJob): Promise<TimedUpload> {
  if (job.delayMs) await new Promise((resolve) => setTimeout(resolve, job.delayMs));
  const authorization = `Bearer ${job.key}`;
  const started = performance.now();
  const { status, text } = await post(`${job.origin}/api/v1/repos/${job.repoId}/upload`, { authorization, 'content-type': job.contentType }, job.body);
  if (status !== 202) throw new Error(`upload answered ${status}: ${text.slice(0, 200)}`);
  const { id } = JSON.parse(text) as { id: string };
  for (;;) {
    const upload = (await (await fetch(`${job.origin}/api/v1/uploads/${id}`, { headers: { authorization } })).json()) as Record<string, unknown>;
    if (upload.status === 'complete') return { seconds: (performance.now() - started) / 1000, upload };
    if (upload.status === 'failed') throw new Error(`upload failed: ${String(upload.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function post(url: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Calls an export of the module at `moduleUrl` in a worker thread, with tsx registered there too
 * (bench code is TypeScript run by tsx). Resolves with its result; `onStart` runs once the worker
 * has loaded it. The module should import little: the worker loads all it imports.
 */
export function inWorker<T>(moduleUrl: string, exportName: string, data: unknown, onStart: () => void = () => undefined): Promise<T> {
  const register = import.meta.resolve('tsx/esm/api');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(${JSON.stringify(register)})
      .then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl)}); })
      .then((module) => { parentPort.postMessage({ started: true }); return module[workerData.exportName](workerData.data); })
      .then((result) => parentPort.postMessage({ result }), (error) => parentPort.postMessage({ error: String(error && error.stack || error) }));`;
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { exportName, data } });
    worker.on('message', (message: { started?: boolean; result?: T; error?: string }) => {
      if (message.started) return onStart();
      void worker.terminate();
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.result as T);
    });
    worker.on('error', reject);
  });
}
