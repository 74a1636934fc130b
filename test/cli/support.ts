import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestApp, type TestApp } from '../support/app.js';
import type { DbKind } from '../support/db.js';

export const cliRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../packages/cli');
export const cliBin = path.join(cliRoot, 'bin/scanyard.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a CLI as a child process in a clean environment: nothing of this machine's CI variables
 * leaks in, and the working folder is no git checkout unless the test makes one.
 */
export function runCli(args: string[], env: Record<string, string> = {}, options: { cwd?: string; bin?: string } = {}): Promise<CliRun> {
  const started = Date.now();
  const cwd = options.cwd ?? fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-cli-'));
  return new Promise((resolve) => {
    execFile(process.execPath, [options.bin ?? cliBin, ...args], {
      cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, timeout: 60_000,
    }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** A test app listening on 127.0.0.1 with one in-process ingest worker, as `serve` runs it. */
export async function listeningApp(kind: DbKind, env: Record<string, string> = {}, port = 0): Promise<TestApp & { url: string }> {
  // Development login pins an instance to its SERVICE_BASE_URL's host; these servers sign nobody in through it.
  const t = await createTestApp(kind, { SERVICE_DEV_LOGIN: 'false', ...env });
  const address = await t.app.listen({ port, host: '127.0.0.1' });
  t.app.services.scans.startWorkers(1, t.app.log);
  return Object.assign(t, { url: address });
}

export function writeTemp(name: string, content: string | Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-files-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}
