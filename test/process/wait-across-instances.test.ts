import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { client, devLogin, processGroup } from '../support/processes.js';
import { runCli, writeTemp } from '../cli/support.js';

// An API-only `serve` and a separate `worker` on one PostgreSQL: the CLI waits on serve, which has no
// worker of its own, so only the database's notification can tell it the upload is done.
describe.runIf(process.env.TEST_DATABASE_URL)('waiting for an upload another process handles', () => {
  const procs = processGroup();
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await procs.killAll();
    await database?.drop();
  });

  it('the CLI returns as soon as the worker process completes the upload', async () => {
    const api = await procs.start('serve', { name: 'api', env: { DATABASE_URL: database.url, SERVICE_WORKERS: '0' } });
    const { cookie } = await devLogin(api.url!);
    const on = client(api.url!, cookie);
    const org = await on.post<{ id: string }>('/api/v1/orgs', { name: 'acme' });
    const repo = await on.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const policy = await fetch(`${api.url}/api/v1/repos/${repo.id}/policy`, {
      method: 'PUT', headers: { cookie, origin: api.url!, 'content-type': 'application/json' }, body: JSON.stringify({ fail_on_new: 'critical' }),
    });
    expect(policy.status).toBe(200);
    const { key } = await on.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });

    const file = writeTemp('r.sarif', sarifLog([{ rule: 'C', file: 'a.ts', securitySeverity: 9.9 }]));
    const cli = runCli(['upload', file, '--repo', 'acme/api', '--fail-on-gate', '--timeout', '50'], { SCANYARD_URL: api.url!, SCANYARD_KEY: key });
    // The worker starts only once the CLI is (very likely) waiting: nothing can process it before.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const workerStarted = Date.now();
    await procs.start('worker', { name: 'worker', env: { DATABASE_URL: database.url, SERVICE_WORKERS: '1' } });
    const run = await cli;
    const afterWorker = Date.now() - workerStarted;

    expect(run.stdout, procs.report()).toContain('new: 1 critical');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('scanyard: the gate failed for 1 of 1 upload to acme/api\n');
    // Far sooner than the 50 s the CLI was prepared to wait (the worker's own start-up is most of it).
    expect(afterWorker).toBeLessThan(25_000);
  }, 120_000);
});
