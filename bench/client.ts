import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// The benchmark times an upload with a client in a process of its own, as a CI job runs on another
// machine: apart from the event loop of the server it measures (which runs in the benchmark's own
// process), and outside the peak memory measured of that process. This file is that client too
// (run as a script, see the end): it imports nothing of the server's.

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

/** The job as the client process gets it: the document is in a file, read before the clock starts. */
type ClientJob = Omit<UploadJob, 'body'> & { file: string };

const SELF = fileURLToPath(import.meta.url);

/**
 * From the first byte sent to `complete`, as a client in a process of its own measured it. It
 * waits a second once started: a 20,000-component SBOM sent at once took 0.3-0.45 s longer, the
 * new process still busy with its start.
 */
export function timeUpload(server: { origin: string; key: string }, repoId: string, body: Uint8Array): Promise<TimedUpload> {
  return uploadInProcess({ origin: server.origin, key: server.key, repoId, body, contentType: 'application/octet-stream', delayMs: 1000 });
}

/** Runs `job` in a client process; `onStart` runs once it is ready to send (before any delay). */
export async function uploadInProcess({ body, ...job }: UploadJob, onStart: () => void = () => undefined): Promise<TimedUpload> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-bench-upload-'));
  try {
    const file = path.join(dir, 'document');
    fs.writeFileSync(file, body);
    return await uploadFileInProcess({ ...job, file }, onStart);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** timeUpload of a document in a file, which this process never reads. */
export function timeUploadOfFile(server: { origin: string; key: string }, repoId: string, file: string): Promise<TimedUpload> {
  return uploadFileInProcess({ origin: server.origin, key: server.key, repoId, file, contentType: 'application/octet-stream', delayMs: 1000 });
}

async function uploadFileInProcess(job: ClientJob, onStart: () => void = () => undefined): Promise<TimedUpload> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, JSON.stringify(job)], {
    cwd: path.dirname(path.dirname(SELF)), stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  let result: TimedUpload | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'started') onStart();
    else result = JSON.parse(line) as TimedUpload;
  }
  const code = await exited;
  if (code !== 0 || !result) throw new Error(`the upload client exited with ${code}`);
  return result;
}

/**
 * After `delayMs`, POSTs the document and waits for it to complete as the CLI does, with
 * `GET /api/v1/uploads/{id}?wait=60`, which answers as soon as the upload settles. Polling every
 * 10 ms instead sent some 300 requests during a 3 s upload, whose answers took 0.3 s of the
 * server's CPU from the ingest on a 2-core host. With
 * node:http, not `fetch`: fetch copies a body it is given whole before its first byte leaves (about
 * 0.3 s of a 33 MiB upload), and its first call in a process loads undici (50-80 ms), both inside
 * the time measured.
 */
async function timedUpload(job: ClientJob): Promise<TimedUpload> {
  const body = fs.readFileSync(job.file);
  process.stdout.write('started\n');
  if (job.delayMs) await new Promise((resolve) => setTimeout(resolve, job.delayMs));
  const authorization = `Bearer ${job.key}`;
  const started = performance.now();
  const { status, text } = await send('POST', `${job.origin}/api/v1/repos/${job.repoId}/upload`, { authorization, 'content-type': job.contentType }, body);
  if (status !== 202) throw new Error(`upload answered ${status}: ${text.slice(0, 200)}`);
  const { id } = JSON.parse(text) as { id: string };
  for (;;) {
    const upload = JSON.parse((await send('GET', `${job.origin}/api/v1/uploads/${id}?wait=60`, { authorization })).text) as Record<string, unknown>;
    if (upload.status === 'complete') return { seconds: (performance.now() - started) / 1000, upload };
    if (upload.status === 'failed') throw new Error(`upload failed: ${String(upload.error)}`);
  }
}

function send(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body ? { ...headers, 'content-length': body.length } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

if (process.argv[1] === SELF) {
  const result = await timedUpload(JSON.parse(process.argv[2]!) as ClientJob);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
