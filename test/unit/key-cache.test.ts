import { describe, expect, it } from 'vitest';
import { KEY_TRUST_MS, keyActorCache } from '../../src/auth/key-cache.js';
import type { Actor } from '../../src/domain/actor.js';

const actor = (keyId: string): Actor => ({
  user: { id: 'u' } as Actor['user'], isAdmin: false, via: 'api_key', sessionId: null, key: { id: keyId, scope: 'read', orgIds: null },
});

describe('the API keys an instance trusts for a moment', () => {
  function setup() {
    let time = 1_000_000;
    const cache = keyActorCache(() => time);
    let lookups = 0;
    const lookUp = (found: Actor | undefined, expiresAt: string | null = null, takes = 0) => async () => {
      lookups++;
      time += takes;
      return found && { actor: found, expiresAt };
    };
    return { cache, lookUp, lookups: () => lookups, advance: (ms: number) => (time += ms), now: () => time };
  }

  it('answers from memory for less than KEY_TRUST_MS from the start of the lookup, then asks again', async () => {
    const { cache, lookUp, lookups, advance } = setup();
    const a = actor('k1');
    // A slow lookup does not lengthen the trust: it counts from when the question was asked.
    expect(await cache.actorOf('hash-a', lookUp(a, null, 200))).toBe(a);
    advance(KEY_TRUST_MS - 201);
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBe(a);
    expect(lookups()).toBe(1);
    advance(1);
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBeUndefined();
    expect(lookups()).toBe(2);
  });

  it('stops at the key\'s expiry inside that moment, and never keeps a key that was not found', async () => {
    const { cache, lookUp, lookups, advance, now } = setup();
    const a = actor('k1');
    expect(await cache.actorOf('hash-a', lookUp(a, new Date(now() + 100).toISOString()))).toBe(a);
    advance(99);
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBe(a);
    advance(1);
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBeUndefined();
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBeUndefined();
    expect(lookups()).toBe(3);
  });

  it('forgets a revoked key at once, and only that key', async () => {
    const { cache, lookUp, lookups } = setup();
    await cache.actorOf('hash-a', lookUp(actor('k1')));
    await cache.actorOf('hash-b', lookUp(actor('k2')));
    cache.forget('k1');
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBeUndefined();
    expect((await cache.actorOf('hash-b', lookUp(undefined)))?.key?.id).toBe('k2');
    expect(lookups()).toBe(3);
  });

  it('shares one lookup among the requests that miss together, and keeps nothing revoked meanwhile', async () => {
    const { cache, lookUp, lookups } = setup();
    let answer!: (found: { actor: Actor; expiresAt: null }) => void;
    const slow = () => new Promise<{ actor: Actor; expiresAt: null }>((resolve) => {
      answer = resolve;
    });
    let asked = 0;
    const counted = () => {
      asked++;
      return slow();
    };
    const together = [cache.actorOf('hash-a', counted), cache.actorOf('hash-a', counted), cache.actorOf('hash-a', counted)];
    cache.forget('k1');
    answer({ actor: actor('k1'), expiresAt: null });
    expect((await Promise.all(together)).map((a) => a?.key?.id)).toEqual(['k1', 'k1', 'k1']);
    expect(asked).toBe(1);
    // Revoked while it was looked up: not kept, so the next request asks again.
    expect(await cache.actorOf('hash-a', lookUp(undefined))).toBeUndefined();
    expect(lookups()).toBe(1);
  });
});
