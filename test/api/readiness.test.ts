import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { TEST_SECRET } from '../support/app.js';

/** A TCP proxy to PostgreSQL that the test can cut and restore, as if the server stopped. */
function pgProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const start = () => new Promise<void>((resolve) => {
    server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1', () => {
      port = (server!.address() as net.AddressInfo).port;
      resolve();
    });
  });
  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server?.close(() => resolve());
  });
  return { start, stop, port: () => port };
}

describe.runIf(process.env.TEST_DATABASE_URL)('readiness when PostgreSQL goes away', () => {
  let database: TestDatabase;
  let db: Db;
  let app: App;
  const proxy = pgProxy(new URL(process.env.TEST_DATABASE_URL ?? 'postgres://x'));
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    await proxy.start();
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port()}`;
    const config = loadConfig({ DATABASE_URL: url.toString(), SERVICE_SESSION_SECRET: TEST_SECRET });
    db = openDatabase(config.database);
    await db.migrate();
    app = await buildApp({ config, db, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await db.close();
    await proxy.stop();
    await database.drop();
  });

  it('answers 503 while the database is unreachable, keeps serving, and recovers', async () => {
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await proxy.stop();
    const down = await app.inject({ url: '/readyz' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ status: 'database unavailable' });
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    const api = await app.inject({ url: '/api/v1/me', headers: { host: 'localhost:8080', authorization: 'Bearer syd_00000000000000000000000000000000000000' } });
    expect(api.statusCode).toBe(401);
    await proxy.start();
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});
