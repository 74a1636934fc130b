import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTHeaderParameters, type FlattenedJWSInput, type CryptoKey } from 'jose';
import type { CiIssuerConfig } from '../ci-issuers-config.js';
import { guardedGet, GetError } from '../net/get.js';

/** Signature algorithms a job token may use: asymmetric only (never none, never HMAC keyed with a public key). */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);
/** An unknown kid fetches the keys again at most this often per issuer. */
export const REFETCH_INTERVAL_MS = 30_000;
/** Keys are fetched again this long after the last fetch, rotation or not. */
const MAX_AGE_MS = 60 * 60 * 1000;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_BYTES = 1024 * 1024;

export class IssuerUnreachable extends Error {}

interface IssuerKeys {
  algorithms: string[];
  jwksUri: string;
  keys: (header: JWTHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;
  fetchedAt: number;
}

/**
 * The signing keys of each configured issuer: the discovery document names jwks_uri and the
 * algorithms, the key set is cached, and a token whose kid is not in it fetches the set again
 * (at most once per 30 s, the new set replacing the old), so a rotated key is picked up and a
 * withdrawn one stops verifying. Every fetch goes through net/'s guard against private addresses.
 */
export function issuerKeyCache(options: { allowPrivate: boolean; clock?: () => number }) {
  const clock = options.clock ?? Date.now;
  const cache = new Map<string, IssuerKeys>();
  const inFlight = new Map<string, Promise<IssuerKeys>>();
  const lastUnknownKidFetch = new Map<string, number>();

  async function getJson(url: string): Promise<unknown> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && !(options.allowPrivate && parsed.protocol === 'http:')) throw new IssuerUnreachable(`${url} is not https`);
    let res;
    try {
      res = await guardedGet({ url, headers: { accept: 'application/json' }, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_BYTES, allowPrivate: options.allowPrivate });
    } catch (error) {
      throw new IssuerUnreachable(error instanceof GetError ? error.message : String(error));
    }
    if (res.status !== 200) throw new IssuerUnreachable(`${url} answered ${res.status}`);
    try {
      return JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new IssuerUnreachable(`${url} did not answer JSON`);
    }
  }

  async function load(issuer: CiIssuerConfig): Promise<IssuerKeys> {
    const discovery = await getJson(`${issuer.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`) as Record<string, unknown>;
    // OpenID Connect Discovery 1.0 §4.3: the document's issuer must be the one asked for.
    if (discovery.issuer !== issuer.issuer) throw new IssuerUnreachable('the discovery document names another issuer');
    if (typeof discovery.jwks_uri !== 'string') throw new IssuerUnreachable('the discovery document has no jwks_uri');
    const published = Array.isArray(discovery.id_token_signing_alg_values_supported)
      ? discovery.id_token_signing_alg_values_supported.filter((a): a is string => typeof a === 'string')
      : ['RS256']; // Discovery §3: RS256 must be supported, and is what an issuer that lists none signs with.
    const algorithms = published.filter((a) => ASYMMETRIC.has(a));
    const jwks = await getJson(discovery.jwks_uri);
    if (typeof jwks !== 'object' || jwks === null || !Array.isArray((jwks as JSONWebKeySet).keys)) throw new IssuerUnreachable('the JWKS has no keys');
    return { algorithms, jwksUri: discovery.jwks_uri, keys: createLocalJWKSet(jwks as JSONWebKeySet), fetchedAt: clock() };
  }

  function refresh(issuer: CiIssuerConfig): Promise<IssuerKeys> {
    let pending = inFlight.get(issuer.id);
    if (!pending) {
      pending = load(issuer).then((keys) => {
        cache.set(issuer.id, keys);
        return keys;
      }).finally(() => inFlight.delete(issuer.id));
      inFlight.set(issuer.id, pending);
    }
    return pending;
  }

  async function current(issuer: CiIssuerConfig): Promise<IssuerKeys> {
    const cached = cache.get(issuer.id);
    if (cached && clock() - cached.fetchedAt < MAX_AGE_MS) return cached;
    return refresh(issuer);
  }

  return {
    /** The algorithms the issuer publishes that are allowed here. */
    async algorithms(issuer: CiIssuerConfig): Promise<string[]> {
      return (await current(issuer)).algorithms;
    },

    /** jose's key lookup for one issuer's tokens: an unknown kid refetches the set, at most once per 30 s. */
    keyFor(issuer: CiIssuerConfig) {
      return async (header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
        const keys = await current(issuer);
        try {
          return await keys.keys(header, token);
        } catch (error) {
          if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
          const last = lastUnknownKidFetch.get(issuer.id);
          if (last !== undefined && clock() - last < REFETCH_INTERVAL_MS) throw error;
          lastUnknownKidFetch.set(issuer.id, clock());
          const fresh = await refresh(issuer);
          return fresh.keys(header, token);
        }
      };
    },
  };
}
export type IssuerKeyCache = ReturnType<typeof issuerKeyCache>;
