import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface RunningServer {
  url: string;
  /** Everything the process wrote, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
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

/**
 * The real service as users run it (`node dist/src/main.js serve`) on a free port with a fresh
 * SQLite database in a temporary folder, removed again by stop().
 */
export async function startServer(options: { port?: number; env?: Record<string, string> } = {}): Promise<RunningServer> {
  const main = path.join(repoRoot, 'dist/src/main.js');
  if (!existsSync(main) || !existsSync(path.join(repoRoot, 'dist/web/index.html'))) {
    throw new Error('The server or the web UI is not built: run "npm run build" (npm run test:e2e does it first).');
  }
  const port = options.port ?? await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scanyard-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child: ChildProcess = spawn(process.execPath, [main, 'serve'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SERVICE_BASE_URL: url,
      DATABASE_URL: `sqlite:${path.join(dir, 'scanyard.db')}`,
      SERVICE_SESSION_SECRET: 'e2e-session-secret-0123456789abcdefghij',
      LOG_LEVEL: 'warn',
      SERVICE_RATE_LIMIT_AUTH: '10000',
      SERVICE_RATE_LIMIT_IP: '100000',
      SERVICE_RATE_LIMIT_USER: '100000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return { url, output: () => log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`The server did not become ready:\n${log}`);
}
