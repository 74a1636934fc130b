import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForgeSyncClient, Snapshot } from '../../src/forge/clients/index.js';
import { forgeRunner } from '../../src/forge/runner.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { eventually } from './helpers.js';

// Two instances run the forge workers against one database; a pass that outlasts its lease keeps it.
describe.each(DB_KINDS)('a sync pass longer than its lease (%s)', (kind) => {
  let t: TestApp;
  let orgId: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    const { user, cookie } = await t.user('owner');
    orgId = (await orgClient(t).createOrg(cookie, 'Large')).id;
    await t.app.services.forge.store.link(orgId, 'slow', 'large-org', user.id);
  }, 30_000);
  afterAll(async () => t?.close());

  it('renews the lease while the forge is read, so a second instance starts no parallel pass', async () => {
    let running = 0;
    let most = 0;
    let passes = 0;
    const slow = {
      async readSnapshot(): Promise<Snapshot> {
        passes++;
        most = Math.max(most, ++running);
        // Five leases long.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        running--;
        return { repos: [] };
      },
    } as unknown as ForgeSyncClient;
    const clients = new Map([['slow', slow]]);
    const options = { reconcileMs: 3_600_000, leaseMs: 300, pollMs: 50 };
    const instances = [forgeRunner(t.app.services.forge.store, clients, options, t.app.log), forgeRunner(t.app.services.forge.store, clients, options, t.app.log)];
    for (const runner of instances) runner.start();
    try {
      const link = await eventually(async () => {
        const row = await t.app.services.forge.store.linkOf(orgId);
        expect(row?.last_synced_at).not.toBeNull();
        return row!;
      }, 10_000);
      expect(link).toMatchObject({ last_error: null, lease_until: null });
      expect(most).toBe(1);
      expect(passes).toBe(1);
    } finally {
      await Promise.all(instances.map((runner) => runner.stop()));
    }
  });
});
