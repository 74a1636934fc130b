import type { Actor } from '../domain/actor.js';

/**
 * How long an instance acts on an API key it looked up without asking the database again. Under a
 * second from the moment the lookup began, so a key revoked on any instance (or a change to its
 * user) is refused on every instance within one second; the instance that revokes a key forgets it
 * at once. An expiry is honoured to the millisecond, from the key's own expires_at.
 */
export const KEY_TRUST_MS = 500;
/** Distinct keys kept at most: entries only live for KEY_TRUST_MS, so this bounds a burst, not a steady state. */
const MAX_KEYS = 10_000;

type Found = { actor: Actor; expiresAt: string | null };

interface Entry {
  actor: Actor;
  /** Epoch ms after which the entry is not used: the earlier of the lookup's start + KEY_TRUST_MS and the key's expiry. */
  until: number;
}

/**
 * The actors of keys recently looked up, by the key's hash as stored (never the secret itself, which
 * would otherwise stay in memory after its last use). Only keys that were found are kept: an
 * unknown key is looked up every time.
 */
export function keyActorCache(clock: () => number = () => Date.now()) {
  const entries = new Map<string, Entry>();
  const pending = new Map<string, { startedAt: number; forgotten: number; answer: Promise<Found | undefined> }>();
  /** How many keys were revoked here: a lookup that saw fewer may have found one of them. */
  let forgotten = 0;

  function makeRoom(at: number): void {
    for (const [keyHash, entry] of entries) if (entry.until <= at) entries.delete(keyHash);
    // Still full of live entries: the oldest go first (a Map iterates in insertion order).
    for (const keyHash of entries.keys()) {
      if (entries.size < MAX_KEYS) break;
      entries.delete(keyHash);
    }
  }

  return {
    /**
     * The key's actor: this instance's answer of less than KEY_TRUST_MS ago, else `lookUp`'s, kept
     * when it found one (undefined: not a key that may act). A key in steady use runs out for all its
     * requests at once, so the requests that miss together share one lookup.
     */
    async actorOf(keyHash: string, lookUp: () => Promise<Found | undefined>): Promise<Actor | undefined> {
      const at = clock();
      const entry = entries.get(keyHash);
      if (entry && at < entry.until) return entry.actor;
      if (entry) entries.delete(keyHash);
      let asked = pending.get(keyHash);
      if (!asked) {
        asked = { startedAt: at, forgotten, answer: lookUp().finally(() => pending.delete(keyHash)) };
        pending.set(keyHash, asked);
      }
      const found = await asked.answer;
      if (!found) return undefined;
      // A key revoked here while it was being looked up is not kept.
      if (asked.forgotten === forgotten) {
        const until = Math.min(asked.startedAt + KEY_TRUST_MS, found.expiresAt === null ? Infinity : Date.parse(found.expiresAt));
        if (entries.size >= MAX_KEYS) makeRoom(clock());
        entries.set(keyHash, { actor: found.actor, until });
      }
      return found.actor;
    },

    /** After a key is revoked here: this instance refuses it from the next request on. */
    forget(keyId: string): void {
      forgotten++;
      for (const [keyHash, entry] of entries) if (entry.actor.key?.id === keyId) entries.delete(keyHash);
    },
  };
}
export type KeyActorCache = ReturnType<typeof keyActorCache>;
