import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Db } from '../src/db/index.js';
import { newId } from '../src/db/ids.js';
import { now } from '../src/db/time.js';
import { runsIngestThread } from '../src/scans/index.js';
import { timeUpload } from './client.js';

export const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = randomBytes(32).toString('hex');

export interface BenchServer {
  kind: 'sqlite' | 'postgres';
  app: App;
  db: Db;
  origin: string;
  key: string;
  repoId: string;
  orgId: string;
  close(): Promise<void>;
}

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** A real server on a free port, a fresh database, an org with one repository, and an API key. */
export async function startBenchServer(kind: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<BenchServer> {
  const { url, drop } = await freshDatabase(kind);
  // With dev login on the service answers only to SERVICE_BASE_URL's host, so the port is chosen first.
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = loadConfig({ DATABASE_URL: url, SERVICE_SESSION_SECRET: SECRET, SERVICE_BASE_URL: origin, LOG_LEVEL: 'silent', SERVICE_RATE_LIMIT_USER: '10000000', SERVICE_RATE_LIMIT_IP: '10000000', ...env });
  // As main.ts opens it for `serve`: with an ingest thread, the request thread does not checkpoint.
  const db = openDatabase(config.database, undefined, { checkpoints: !runsIngestThread(config.database, config.workers) });
  await db.migrate();
  const app = await buildApp({ config, db, sessionSecret: SECRET, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const login = await fetch(`${origin}/auth/dev-login`, { method: 'POST', headers: { origin } });
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const user = (await login.json()) as { id: string };
  const { orgId, repoId } = await seedOrg(db, user.id);
  const keyResponse = await fetch(`${origin}/api/v1/apikeys`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/json', origin }, body: JSON.stringify({ name: 'bench', scopes: ['upload'] }),
  });
  const { key } = (await keyResponse.json()) as { key: string };
  if (config.workers > 0) await warmUp(db, user.id, origin, key);
  return {
    kind, app, db, origin, key, repoId, orgId,
    async close() {
      await app.close();
      await db.close();
      await drop();
    },
  };
}

export async function seedOrg(db: Db, ownerId: string, name = `bench-${newId()}`): Promise<{ orgId: string; repoId: string }> {
  const at = now();
  const orgId = newId();
  const repoId = newId();
  await db.kysely.insertInto('orgs').values({ id: orgId, name, name_key: name, description: '', created_at: at, updated_at: at }).execute();
  await db.kysely.insertInto('memberships').values({ org_id: orgId, user_id: ownerId, role: 'owner', created_at: at }).execute();
  await db.kysely.insertInto('repos').values({ id: repoId, org_id: orgId, name: 'service', name_key: 'service', url: null, default_branch: null, created_at: at, updated_at: at }).execute();
  return { orgId, repoId };
}

/**
 * One small upload into a repository of its own, waited for, so that what is measured next runs on
 * a server whose ingest thread has started (from source, under tsx, that takes about two seconds).
 */
async function warmUp(db: Db, userId: string, origin: string, key: string): Promise<void> {
  const { repoId } = await seedOrg(db, userId, 'bench-warm-up');
  const sarif = { version: '2.1.0', runs: [{ tool: { driver: { name: 'warm-up' } }, results: [{ ruleId: 'r', message: { text: 'm' } }] }] };
  await timeUpload({ origin, key }, repoId, Buffer.from(JSON.stringify(sarif)));
}

function freePort(): Promise<number> {
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

async function freshDatabase(kind: 'sqlite' | 'postgres'): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-bench-'));
    return { url: `sqlite:${path.join(dir, 'bench.db')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `scanyard_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`create database ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** Samples the process's resident memory until stopped; returns the peak in MiB. */
export function trackPeakMemory(): () => number {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(peak, process.memoryUsage().rss) / 1024 / 1024);
  };
}
