import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { processGroup } from '../support/processes.js';

/** This machine's own addresses that other machines would use (not loopback). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces()).flat()
    .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4').map((a) => a!.address);
}

async function connects(url: string): Promise<boolean> {
  try {
    await (await fetch(url, { signal: AbortSignal.timeout(5000) })).arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

describe('a dev-login instance without HOST listens on this machine only', () => {
  const procs = processGroup();
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await procs.killAll();
    await database?.drop();
  });

  it('binds 127.0.0.1, refuses other addresses, and says in the log how to expose it properly', async () => {
    const serve = await procs.start('serve', { env: { DATABASE_URL: database.url, HOST: '' } });
    const port = new URL(serve.url!).port;
    const listening = serve.logs().filter((l) => l.msg?.startsWith('Server listening at')).map((l) => l.msg);
    expect(listening).toEqual([`Server listening at http://127.0.0.1:${port}`]);
    expect(await connects(`http://127.0.0.1:${port}/healthz`)).toBe(true);
    for (const address of externalAddresses()) expect(await connects(`http://${address}:${port}/healthz`)).toBe(false);

    const warning = serve.logs().find((l) => l.level === 40 && l.msg?.includes('development login'))?.msg;
    expect(warning).toContain('only this machine can connect (127.0.0.1)');
    expect(warning).toContain('SERVICE_PROVIDERS');
    expect(warning).toContain('HOST');
    expect((await serve.signal('SIGTERM')).code).toBe(0);
  });

  it('listens where HOST says when it is set explicitly', async () => {
    const serve = await procs.start('serve', { env: { DATABASE_URL: database.url, HOST: '0.0.0.0' } });
    const port = new URL(serve.url!).port;
    const listening = serve.logs().filter((l) => l.msg?.startsWith('Server listening at')).map((l) => l.msg);
    expect(listening).toContain(`Server listening at http://127.0.0.1:${port}`);
    for (const address of externalAddresses()) {
      expect(listening).toContain(`Server listening at http://${address}:${port}`);
      expect(await connects(`http://${address}:${port}/healthz`)).toBe(true);
    }
    expect(serve.logs().find((l) => l.level === 40 && l.msg?.includes('development login'))?.msg).toContain('do not expose this instance');
    expect((await serve.signal('SIGTERM')).code).toBe(0);
  });
});
