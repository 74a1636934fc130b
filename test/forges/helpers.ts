import { expect } from 'vitest';
import { createForge, ForgeError, pkcePair, randomState, type Forge, type ForgeErrorKind } from '../../src/auth/forges/index.js';
import { loadProviders, type ProviderConfig } from '../../src/providers-config.js';
import type { EmulatedForge } from '../support/forge-emulator.js';

/** Never contacted: the tests read the code off the redirect instead of following it. */
export const CALLBACK = 'http://127.0.0.1:9/auth/callback';

/** The provider config the service would build from SERVICE_PROVIDERS for this emulated forge. */
export function providerFor(forge: EmulatedForge, extra: Record<string, unknown> = {}): ProviderConfig {
  const [config] = loadProviders({ SERVICE_PROVIDERS: JSON.stringify([{ id: 'test', ...forge.config, ...extra }]) });
  if (!config) throw new Error('no provider loaded');
  return config;
}

export function clientFor(forge: EmulatedForge, opts: { timeoutMs?: number; extra?: Record<string, unknown> } = {}): Forge {
  return createForge(providerFor(forge, opts.extra), { timeoutMs: opts.timeoutMs ?? 2_000 });
}

export interface BrowserVisit {
  status: number;
  location: URL;
  state: string;
  verifier: string;
  code: string;
}

/** What the browser does: open the authorize URL and land on the redirect. */
export async function visitAuthorize(forge: Forge, redirectUri = CALLBACK): Promise<BrowserVisit> {
  const { verifier, challenge } = pkcePair();
  const state = randomState();
  const res = await fetch(forge.authorizeUrl({ state, codeChallenge: challenge, redirectUri }), { redirect: 'manual' });
  await res.arrayBuffer();
  const location = new URL(res.headers.get('location') ?? `${CALLBACK}?missing-location`);
  return { status: res.status, location, state, verifier, code: location.searchParams.get('code') ?? '' };
}

/** Awaits a ForgeError of the given kind whose message leaks none of the given values. */
export async function expectForgeError(
  promise: Promise<unknown>,
  kind: ForgeErrorKind,
  secrets: string[],
  fragment?: string,
): Promise<ForgeError> {
  const err: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ForgeError);
  const forgeError = err as ForgeError;
  expect(forgeError.kind).toBe(kind);
  if (fragment !== undefined) expect(forgeError.message).toContain(fragment);
  for (const secret of secrets.filter(Boolean)) expect(forgeError.message).not.toContain(secret);
  return forgeError;
}
