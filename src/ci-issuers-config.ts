import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import ipaddr from 'ipaddr.js';

/**
 * SERVICE_CI_ISSUERS / SERVICE_CI_ISSUERS_FILE: the CI systems whose job tokens (OIDC JWTs) may be
 * exchanged for a short-lived upload token. Issuers are configured, never taken from a token.
 */
export type CiIssuerType = 'github-actions' | 'gitlab' | 'bitbucket' | 'generic';
export const CI_ISSUER_TYPES: readonly CiIssuerType[] = ['github-actions', 'gitlab', 'bitbucket', 'generic'];

/** Where a generic issuer's tokens carry each fact (claim names). */
export interface CiClaimMap {
  repository: string;
  repository_id: string;
  ref: string;
  sha?: string;
  event?: string;
}

export interface CiIssuerConfig {
  id: string;
  type: CiIssuerType;
  /** The `iss` its tokens carry, exactly; its discovery document is at {issuer}/.well-known/openid-configuration. */
  issuer: string;
  audience: string;
  claims: CiClaimMap | null;
}

export class CiIssuerConfigError extends Error {
  override readonly name = 'CiIssuerConfigError';
}

const FIELDS = ['id', 'type', 'issuer', 'audience', 'claims'];
const CLAIM_FIELDS = ['repository', 'repository_id', 'ref', 'sha', 'event'];

export function loadCiIssuers(env: Record<string, string | undefined>, baseUrl: string, allowPrivate: boolean): CiIssuerConfig[] {
  const inline = env.SERVICE_CI_ISSUERS?.trim() || null;
  const file = env.SERVICE_CI_ISSUERS_FILE?.trim() || null;
  if (inline !== null && file !== null) throw new CiIssuerConfigError('SERVICE_CI_ISSUERS and SERVICE_CI_ISSUERS_FILE are both set; set only one of them');
  let label: string;
  let data: unknown;
  if (inline !== null) {
    label = 'SERVICE_CI_ISSUERS';
    data = parseText(inline, label, true);
  } else if (file !== null) {
    label = `SERVICE_CI_ISSUERS_FILE (${file})`;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new CiIssuerConfigError(`${label}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
    }
    data = parseText(text, label, extname(file).toLowerCase() === '.json');
  } else {
    return [];
  }
  if (!Array.isArray(data)) throw new CiIssuerConfigError(`${label}: must be an array of issuers`);
  const ids = new Set<string>();
  const issuers = new Set<string>();
  return data.map((entry, i) => {
    const parsed = parseEntry(entry, `${label}[${i}]`, baseUrl, allowPrivate);
    if (ids.has(parsed.id)) throw new CiIssuerConfigError(`${label}[${i}]: id "${parsed.id}" is used twice`);
    if (issuers.has(parsed.issuer)) throw new CiIssuerConfigError(`${label}[${i}]: issuer ${parsed.issuer} is listed twice`);
    ids.add(parsed.id);
    issuers.add(parsed.issuer);
    return parsed;
  });
}

function parseText(text: string, label: string, json: boolean): unknown {
  try {
    return json ? JSON.parse(text) : parseYaml(text);
  } catch {
    throw new CiIssuerConfigError(`${label}: is not valid ${json ? 'JSON' : 'YAML'}`);
  }
}

function parseEntry(entry: unknown, at: string, baseUrl: string, allowPrivate: boolean): CiIssuerConfig {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new CiIssuerConfigError(`${at}: must be an object with id, type and issuer`);
  const e = entry as Record<string, unknown>;
  const fail = (problem: string): never => {
    throw new CiIssuerConfigError(`${at}: ${problem}`);
  };
  const unknown = Object.keys(e).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) fail(`unknown field ${JSON.stringify(unknown)}; expected ${FIELDS.join(', ')}`);
  const id = typeof e.id === 'string' && /^[a-z0-9_-]{1,64}$/.test(e.id) ? e.id : fail('id must be 1 to 64 of a-z, 0-9, "_" and "-"');
  const type = CI_ISSUER_TYPES.find((t) => t === e.type) ?? fail(`type must be one of ${CI_ISSUER_TYPES.join(', ')}`);
  const issuer = issuerUrl(e.issuer, allowPrivate, fail);
  const audience = e.audience === undefined ? baseUrl : typeof e.audience === 'string' && e.audience.trim() !== '' ? e.audience : fail('audience must be a non-empty string');
  let claims: CiClaimMap | null = null;
  if (type === 'generic') {
    const c = e.claims;
    if (typeof c !== 'object' || c === null || Array.isArray(c)) return fail('a generic issuer needs claims: {repository, repository_id, ref, sha?, event?}');
    const map = c as Record<string, unknown>;
    const bad = Object.keys(map).find((k) => !CLAIM_FIELDS.includes(k));
    if (bad !== undefined) fail(`claims: unknown field ${JSON.stringify(bad)}; expected ${CLAIM_FIELDS.join(', ')}`);
    for (const [k, v] of Object.entries(map)) if (typeof v !== 'string' || v === '') fail(`claims.${k} must be a claim name`);
    for (const k of ['repository', 'repository_id', 'ref']) if (map[k] === undefined) fail(`claims.${k} is required`);
    claims = map as unknown as CiClaimMap;
  } else if (e.claims !== undefined) {
    fail(`claims is only for type "generic"; ${type} tokens are read as that CI documents them`);
  }
  return { id, type, issuer, audience, claims };
}

/** https on a public host, unless SERVICE_CI_ALLOW_PRIVATE (internal CI, tests); checked again after DNS at fetch time. */
function issuerUrl(value: unknown, allowPrivate: boolean, fail: (p: string) => never): string {
  if (typeof value !== 'string') return fail('issuer must be a URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('issuer is not a valid URL');
  }
  if (url.username || url.password || url.search || url.hash) fail('issuer must not carry credentials, a query or a fragment');
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) fail(`issuer ${value} must use https (http only with SERVICE_CI_ALLOW_PRIVATE=true)`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (ipaddr.isValid(host) && ipaddr.process(host).range() !== 'unicast'))) {
    fail(`issuer ${value} is not a public address (SERVICE_CI_ALLOW_PRIVATE=true allows it)`);
  }
  // The token's iss must equal this string exactly, as the issuer's discovery document states it.
  return value;
}
