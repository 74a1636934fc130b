import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';
import { SESSION_COOKIE } from '../../src/auth/session.js';
import { parseDatabaseUrl } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/index.js';

/**
 * The real service as child processes (`node --import tsx src/main.ts serve|worker`), for the tests
 * that need what an in-process app cannot show: several instances on one database, SIGKILL, SIGTERM.
 */

export const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** One secret for every instance of a test, as a multi-instance deployment shares it. */
export const PROCESS_SECRET = 'process-test-secret-0123456789abcdefghijklmnop';

export type Command = 'serve' | 'worker';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  name: string;
  command: Command;
  pid: number;
  /** `http://127.0.0.1:PORT` for `serve`; null for `worker`. */
  url: string | null;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Its pino log lines, parsed (lines that are not JSON are left out). */
  logs(): LogLine[];
  /** Resolves when the process has exited (at once if it already has). */
  exited: Promise<Exit>;
  running(): boolean;
  /** Sends a signal; the exit it caused, or an error naming the process if it takes over `timeoutMs`. */
  signal(signal: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** Resolves once /readyz answers 200 (serve) or the workers have started (worker). */
  ready(): Promise<void>;
}

export interface LogLine {
  level: number;
  msg?: string;
  upload_id?: string;
  [key: string]: unknown;
}

export interface StartOptions {
  /** DATABASE_URL and anything else the process needs; merged over quiet, permissive defaults. */
  env: Record<string, string>;
  name?: string;
  /** How long to wait for /readyz (serve) or the "workers started" line (worker). */
  readyTimeoutMs?: number;
  /** false: return once spawned, and wait with ready() when it suits the test. */
  waitUntilReady?: boolean;
}

export interface ProcessGroup {
  start(command: Command, options: StartOptions): Promise<ServiceProcess>;
  /** The tail of every process's output, for a failure message. */
  report(): string;
  /** SIGKILLs whatever still runs (in this test file) and waits for it to go. */
  killAll(): Promise<void>;
}

/** Every process started here that has not exited yet, with the promise of its exit. */
const children = new Map<ChildProcess, Promise<Exit>>();
// If the test worker itself goes away, take the services with it: no orphans holding ports or databases.
process.once('exit', () => {
  for (const child of children.keys()) child.kill('SIGKILL');
});

/** SIGKILLs every process started here that still runs (also one still starting) and waits for it to go. */
export async function killAllProcesses(): Promise<void> {
  await Promise.all([...children].map(([child, exited]) => {
    child.kill('SIGKILL');
    return exited;
  }));
}

/**
 * A set of processes for one test file: call it at the top of a describe block. It SIGKILLs them all
 * after the file (also when a test failed) and prints their output when a test fails.
 */
export function processGroup(): ProcessGroup {
  const started: ServiceProcess[] = [];
  const group: ProcessGroup = {
    async start(command, options) {
      const proc = await startService(command, { ...options, name: options.name ?? `${command}#${started.length + 1}` });
      started.push(proc);
      return proc;
    },
    report() {
      return started.map((p) => `----- ${p.name} (pid ${p.pid}, ${p.running() ? 'running' : 'exited'}) -----\n${tail(p.output(), 6000)}`).join('\n');
    },
    killAll: killAllProcesses,
  };
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') console.error(`Output of the service processes:\n${group.report()}`);
  });
  afterAll(() => group.killAll());
  return group;
}

export async function startService(command: Command, options: StartOptions): Promise<ServiceProcess> {
  // The port is free when chosen but another process may take it first: try again with another.
  for (let attempt = 1; ; attempt++) {
    const port = command === 'serve' ? await freePort() : 0;
    try {
      return await spawnService(command, port, options);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof StartError) || !/EADDRINUSE/.test(error.output)) throw error;
    }
  }
}

class StartError extends Error {
  constructor(message: string, readonly output: string) {
    super(`${message}\n${tail(output, 8000)}`);
  }
}

async function spawnService(command: Command, port: number, options: StartOptions): Promise<ServiceProcess> {
  const name = options.name ?? command;
  const url = command === 'serve' ? `http://127.0.0.1:${port}` : null;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', command], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TMPDIR: process.env.TMPDIR ?? '',
      HOST: '127.0.0.1',
      PORT: String(port || 8080),
      ...(url ? { SERVICE_BASE_URL: url } : {}),
      SERVICE_SESSION_SECRET: PROCESS_SECRET,
      LOG_LEVEL: 'info',
      SERVICE_RATE_LIMIT_USER: '1000000',
      SERVICE_RATE_LIMIT_IP: '1000000',
      SERVICE_RATE_LIMIT_AUTH: '1000000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => {
    // 'close', not 'exit': by then the pipes are drained, so output() holds the last lines too.
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  children.set(child, exited);
  const running = () => child.exitCode === null && child.signalCode === null;

  const proc: ServiceProcess = {
    name, command, pid: child.pid!, url, exited, running,
    output: () => out,
    logs: () => parseLogs(out),
    ready: () => Promise.resolve(),
    async signal(signal, timeoutMs = 30_000) {
      if (running()) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${name} did not exit within ${timeoutMs} ms of ${signal}; killed it.\n${tail(out, 6000)}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };

  let readiness: Promise<void> | undefined;
  proc.ready = () => (readiness ??= (async () => {
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline && running()) {
      if (url ? await isReady(url) : parseLogs(out).some((l) => l.msg === 'ingest workers started')) return;
      await sleep(100);
    }
    if (running()) {
      child.kill('SIGKILL');
      await exited;
      throw new StartError(`${name} (${command}) did not become ready`, out);
    }
    throw new StartError(`${name} (${command}) exited before it was ready (${JSON.stringify(await exited)})`, out);
  })());
  if (options.waitUntilReady !== false) await proc.ready();
  return proc;
}

async function isReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function parseLogs(out: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // a line still being written, or not ours
    }
  }
  return lines;
}

/** Upload ids this process logged as processed ("upload processed" lines). */
export function processedUploads(proc: ServiceProcess): string[] {
  return proc.logs().filter((l) => l.msg === 'upload processed' && typeof l.upload_id === 'string').map((l) => l.upload_id!);
}

/**
 * Waits until these processes have logged `count` processed uploads. A process writes that line just
 * after its commit and the test reads the pipe asynchronously, so the database can show the work
 * done a moment before the log does.
 */
export function waitForProcessedLogs(procs: ServiceProcess[], count: number, timeoutMs = 10_000): Promise<true> {
  return waitFor(`${count} "upload processed" log lines`, async () => procs.flatMap(processedUploads).length >= count, timeoutMs, 20);
}

function tail(text: string, chars: number): string {
  return text.length > chars ? `[... ${text.length - chars} characters before ...]\n${text.slice(-chars)}` : text;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined/false, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ---- HTTP, as a client of the running service ----

/** A signed-in client of one instance: the session cookie and the instance's origin for writes. */
export interface Client {
  url: string;
  cookie: string;
  get<T = unknown>(pathname: string): Promise<T>;
  post<T = unknown>(pathname: string, body: unknown, expectStatus?: number): Promise<T>;
}

/** POST /auth/dev-login on an instance; returns the session cookie and the user. */
export async function devLogin(url: string): Promise<{ cookie: string; user: { id: string; login: string } }> {
  const res = await fetch(`${url}/auth/dev-login`, { method: 'POST', headers: { origin: url } });
  if (res.status !== 200) throw new Error(`dev login on ${url}: ${res.status} ${await res.text()}`);
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!cookie) throw new Error(`dev login on ${url} set no session cookie`);
  return { cookie, user: (await res.json()) as { id: string; login: string } };
}

/** The same session cookie, used against any instance. */
export function client(url: string, cookie: string): Client {
  return {
    url, cookie,
    async get<T>(pathname: string) {
      const res = await fetch(`${url}${pathname}`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`GET ${url}${pathname}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    async post<T>(pathname: string, body: unknown, expectStatus = 201) {
      const res = await fetch(`${url}${pathname}`, {
        method: 'POST', headers: { cookie, origin: url, 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      if (res.status !== expectStatus) throw new Error(`POST ${url}${pathname}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
  };
}

export interface AcceptedUpload {
  id: string;
  status: string;
  category: string;
  sha256: string;
}

/** POSTs a document to a repository with an API key; the accepted upload (202) or an error with the answer. */
export async function postUpload(url: string, key: string, repoId: string, body: string | Buffer, category: string): Promise<AcceptedUpload> {
  const res = await fetch(`${url}/api/v1/repos/${repoId}/upload?category=${encodeURIComponent(category)}`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/sarif+json' }, body,
  });
  if (res.status !== 202) throw new Error(`upload to ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as AcceptedUpload;
}

/** Runs `fn` over `items`, at most `limit` at a time; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return results;
}

// ---- The database behind the processes, read directly ----

/** A connection of the test's own to the database the processes use (to read what the API does not show). */
export function inspectDatabase(url: string): Db {
  return openDatabase(parseDatabaseUrl(url));
}

export interface UploadState {
  id: string;
  status: string;
  attempts: number;
  category: string;
  error: string | null;
  new_count: number;
  unchanged_count: number;
  fixed_count: number;
  reopened_count: number;
  findings_count: number;
}

export async function uploadStates(db: Db): Promise<UploadState[]> {
  const rows = await db.kysely.selectFrom('uploads')
    .select(['id', 'status', 'attempts', 'category', 'error', 'new_count', 'unchanged_count', 'fixed_count', 'reopened_count', 'findings_count'])
    .orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

/** Waits until no upload is pending or processing; fails at once if one failed (with its reason). */
export async function waitUntilAllComplete(db: Db, expected: number, timeoutMs: number): Promise<UploadState[]> {
  return waitFor(`${expected} uploads to complete`, async () => {
    const rows = await uploadStates(db);
    const failed = rows.find((r) => r.status === 'failed');
    if (failed) throw new Error(`upload ${failed.id} failed: ${failed.error}`);
    return rows.length >= expected && rows.every((r) => r.status === 'complete') ? rows : undefined;
  }, timeoutMs, 250);
}
