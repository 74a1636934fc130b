import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitbucketSync } from '../../src/forge/clients/bitbucket.js';
import { ForgeSyncError, type ForgeCallOptions } from '../../src/forge/clients/index.js';
import type { ProviderConfig } from '../../src/providers-config.js';
import { startBitbucketEmulator, type BitbucketEmulator } from '../support/forge-emulator/bitbucket.js';

// Bitbucket Cloud's 429 names no wait ("API request limits": a one-hour window that rolls on by the
// minute); the client waits a minute and asks again, a few times, then stops the pass.
describe('the Bitbucket sync client under rate limits', () => {
  let bb: BitbucketEmulator;
  let waits: number[];
  let client: ReturnType<typeof bitbucketSync>;

  beforeAll(async () => {
    bb = await startBitbucketEmulator({ pageSize: 2 });
    const ws = bb.addWorkspace('acme');
    for (const slug of ['one', 'two', 'three']) ws.repos.push({ uuid: bb.newUuid(), slug, mainbranch: 'main', is_private: true });
    const config: ProviderConfig = {
      id: 'bb', type: 'bitbucket', name: 'Bitbucket', client_id: 'c', client_secret: 's', url: bb.url, api_url: bb.apiUrl, scopes: [],
      sync: { kind: 'token', token: bb.botToken, webhookSecret: 'x' },
    };
    const call: ForgeCallOptions = {
      name: 'Bitbucket', allowPrivate: true, timeoutMs: 5000, maxWaitMs: 5 * 60_000,
      sleep: async (ms) => void waits.push(ms), clock: Date.now,
    };
    client = bitbucketSync(config, call);
  });
  afterAll(async () => bb?.close());

  it('waits a minute after a 429 naming no wait, asks again and reads every page', async () => {
    waits = [];
    bb.limit(1, /\/repositories\/acme$/);
    const snapshot = await client.readSnapshot('acme', ['repos']);
    expect(waits).toEqual([60_000]);
    expect(snapshot.repos?.map((r) => r.fullName)).toEqual(['acme/one', 'acme/two', 'acme/three']);
  });

  it('stops with an error naming the rate limit when Bitbucket keeps answering 429', async () => {
    waits = [];
    bb.limit(10, /\/repositories\/acme$/);
    const error = await client.readSnapshot('acme', ['repos']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForgeSyncError);
    expect((error as Error).message).toContain('rate-limited');
    expect(waits).toEqual([60_000, 60_000, 60_000, 60_000]);
  });
});
