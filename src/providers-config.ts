import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { IdpMetadataError, parseIdpMetadata, type IdpMetadata } from './saml-metadata.js';

export type ForgeType = 'github' | 'gitlab' | 'gitea' | 'forgejo' | 'bitbucket';
export const FORGE_TYPES: readonly ForgeType[] = ['github', 'gitlab', 'gitea', 'forgejo', 'bitbucket'];

export interface ProviderConfig {
  id: string;
  type: ForgeType;
  name: string;
  client_id: string;
  client_secret: string;
  /** Web base of the forge (authorize and token endpoints hang off it), no trailing slash. */
  url: string;
  /** REST API base: https://api.github.com, {url}/api/v3, {url}/api/v4, {url}/api/v1, https://api.bitbucket.org. */
  api_url: string;
  scopes: string[];
  /** Credentials for following the forge's organisations (forge/); null: sign-in only. Never logged or returned. */
  sync: SyncCredentials | null;
}

/**
 * GitHub: a GitHub App (its id and private key) mints an installation token per organisation.
 * GitLab, Gitea, Forgejo: a group/bot access token. Bitbucket: a workspace access token.
 * Each with the secret the forge signs (or sends with) its webhooks.
 */
export type SyncCredentials =
  | { kind: 'github_app'; appId: string; privateKey: string; webhookSecret: string }
  | { kind: 'token'; token: string; webhookSecret: string };
/** A group of the IdP granting a role in an organisation (named by name, looked up at every sign-in), and optionally a team in it. */
export interface GroupMapping {
  group: string;
  org: string;
  role: 'owner' | 'member';
  team: string | null;
}

/** An OpenID Connect provider (Keycloak, Okta, Entra ID, Google...), discovered from `issuer`. */
export interface OidcProviderConfig {
  id: string;
  type: 'oidc';
  name: string;
  /** The issuer exactly as the IdP's discovery document states it (no trailing slash added or removed). */
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string[];
  login_claim: string;
  name_claim: string;
  email_claim: string;
  groups_claim: string;
  group_mappings: GroupMapping[];
  /** Sign out at the IdP too (RP-initiated logout) when it advertises an end_session_endpoint. */
  end_session: boolean;
}

/** A SAML 2.0 identity provider (Okta, Entra ID, ADFS, Keycloak...), described by its metadata. */
export interface SamlProviderConfig {
  id: string;
  type: 'saml';
  name: string;
  /** Fetched (through the SSRF guard) at the first sign-in and every hour after; null with a file. */
  idp_metadata_url: string | null;
  /** Read and checked at start from `idp_metadata_file`; null with a URL. */
  idp_metadata: IdpMetadata | null;
  login_attribute: string;
  email_attribute: string;
  name_attribute: string;
  groups_attribute: string;
  group_mappings: GroupMapping[];
}

/** One line naming the variable, the entry and the problem; never carries client_secret. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}

const PUBLIC_URL: Record<ForgeType, string | null> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.com',
  gitea: null,
  forgejo: null,
  bitbucket: 'https://bitbucket.org',
};

const DEFAULT_SCOPES: Record<ForgeType, readonly string[]> = {
  // read:org / read_api: linking an org checks, with the signer's own token, that they administer it.
  github: ['read:user', 'user:email', 'read:org'],
  gitlab: ['read_user', 'read_api'],
  gitea: ['read:user'],
  forgejo: ['read:user'],
  bitbucket: ['account', 'email'],
};

const SYNC_FIELDS = ['app_id', 'private_key', 'private_key_file', 'webhook_secret', 'token'];
const FIELDS = ['id', 'type', 'name', 'client_id', 'client_secret', 'url', 'api_url', 'scopes', ...SYNC_FIELDS];

function defaultApiUrl(type: ForgeType, url: string): string | null {
  switch (type) {
    case 'github':
      return url === 'https://github.com' ? 'https://api.github.com' : `${url}/api/v3`;
    case 'gitlab':
      return `${url}/api/v4`;
    case 'gitea':
    case 'forgejo':
      return `${url}/api/v1`;
    case 'bitbucket':
      // Bitbucket Cloud is one service; any other url is a test double whose API we cannot guess.
      return url === 'https://bitbucket.org' ? 'https://api.bitbucket.org' : null;
  }
}

type AnyProvider = ProviderConfig | OidcProviderConfig | SamlProviderConfig;

/** The forge providers of SERVICE_PROVIDERS(_FILE); OpenID Connect and SAML entries come from their own loaders. */
export function loadProviders(env: Record<string, string | undefined>): ProviderConfig[] {
  return loadAll(env).filter((p): p is ProviderConfig => p.type !== 'oidc' && p.type !== 'saml');
}

/** The `type: "oidc"` entries of the same list, in the same order; ids are unique across both kinds. */
export function loadOidcProviders(env: Record<string, string | undefined>): OidcProviderConfig[] {
  return loadAll(env).filter((p): p is OidcProviderConfig => p.type === 'oidc');
}

/**
 * The `type: "saml"` entries, in the same order. An `http:` metadata URL needs allowPrivate
 * (SERVICE_SAML_ALLOW_PRIVATE): the certificates that verify every sign-in come from it.
 */
export function loadSamlProviders(env: Record<string, string | undefined>, allowPrivate: boolean): SamlProviderConfig[] {
  const saml = loadAll(env).filter((p): p is SamlProviderConfig => p.type === 'saml');
  const plain = saml.find((p) => p.idp_metadata_url?.startsWith('http:'));
  if (plain && !allowPrivate) {
    throw new ProviderConfigError(`SERVICE_PROVIDERS (id ${quote(plain.id)}): idp_metadata_url must use https (http only with SERVICE_SAML_ALLOW_PRIVATE=true)`);
  }
  return saml;
}

function loadAll(env: Record<string, string | undefined>): AnyProvider[] {
  const source = readSource(env);
  if (source === null) return [];
  if (!Array.isArray(source.data)) {
    throw new ProviderConfigError(`${source.label}: must be an array of providers, got ${show(source.data)}`);
  }
  const seen = new Map<string, string>();
  return source.data.map((entry, i) => {
    const at = `${source.label}[${i}]`;
    if (isRecord(entry) && entry.type === 'oidc') return parseOidcEntry(entry, at, seen);
    if (isRecord(entry) && entry.type === 'saml') return parseSamlEntry(entry, at, seen);
    return parseEntry(entry, at, seen);
  });
}

const OIDC_FIELDS = [
  'id', 'type', 'name', 'issuer', 'client_id', 'client_secret', 'scopes', 'login_claim', 'name_claim', 'email_claim',
  'groups_claim', 'group_mappings', 'end_session',
];

function parseOidcEntry(entry: Record<string, unknown>, at: string, seen: Map<string, string>): OidcProviderConfig {
  const where = typeof entry.id === 'string' ? `${at} (id ${quote(entry.id)})` : at;
  const fail = (problem: string): never => {
    throw new ProviderConfigError(`${where}: ${problem}`);
  };
  const unknown = Object.keys(entry).find((k) => !OIDC_FIELDS.includes(k));
  if (unknown !== undefined) fail(`unknown field ${quote(unknown)}; expected ${OIDC_FIELDS.join(', ')}`);
  const id = parseId(entry.id, fail);
  const previous = seen.get(id);
  if (previous !== undefined) fail(`id ${quote(id)} is already used by ${previous}`);
  seen.set(id, at);
  const issuer = parseUrl(entry.issuer, 'issuer', fail) ?? fail('issuer is missing');
  const claim = (field: string, fallback: string): string =>
    entry[field] === undefined ? fallback : requireText(entry[field], field, fail, true);
  if (entry.end_session !== undefined && typeof entry.end_session !== 'boolean') fail(`end_session must be true or false, got ${show(entry.end_session)}`);
  return {
    id,
    type: 'oidc',
    name: requireText(entry.name, 'name', fail, true),
    // Discovery compares the issuer exactly: keep what was written, a trailing slash included.
    issuer: typeof entry.issuer === 'string' && entry.issuer.endsWith('/') ? `${issuer}/` : issuer,
    client_id: requireText(entry.client_id, 'client_id', fail, true),
    client_secret: requireText(entry.client_secret, 'client_secret', fail, false),
    scopes: parseScopes(entry.scopes, fail) ?? ['openid', 'profile', 'email'],
    login_claim: claim('login_claim', 'preferred_username'),
    name_claim: claim('name_claim', 'name'),
    email_claim: claim('email_claim', 'email'),
    groups_claim: claim('groups_claim', 'groups'),
    group_mappings: parseGroupMappings(entry.group_mappings, fail),
    end_session: entry.end_session === true,
  };
}

const SAML_FIELDS = [
  'id', 'type', 'name', 'idp_metadata_url', 'idp_metadata_file', 'login_attribute', 'email_attribute', 'name_attribute',
  'groups_attribute', 'group_mappings',
];

function parseSamlEntry(entry: Record<string, unknown>, at: string, seen: Map<string, string>): SamlProviderConfig {
  const where = typeof entry.id === 'string' ? `${at} (id ${quote(entry.id)})` : at;
  const fail = (problem: string): never => {
    throw new ProviderConfigError(`${where}: ${problem}`);
  };
  const unknown = Object.keys(entry).find((k) => !SAML_FIELDS.includes(k));
  if (unknown !== undefined) fail(`unknown field ${quote(unknown)}; expected ${SAML_FIELDS.join(', ')}`);
  const id = parseId(entry.id, fail);
  const previous = seen.get(id);
  if (previous !== undefined) fail(`id ${quote(id)} is already used by ${previous}`);
  seen.set(id, at);
  const url = entry.idp_metadata_url === undefined ? null : parseMetadataUrl(entry.idp_metadata_url, fail);
  const file = entry.idp_metadata_file === undefined ? null : requireText(entry.idp_metadata_file, 'idp_metadata_file', fail, true);
  if (url !== null && file !== null) fail('set idp_metadata_url or idp_metadata_file, not both');
  if (url === null && file === null) fail('idp_metadata_url or idp_metadata_file is missing (the IdP\'s SAML metadata)');
  const attribute = (field: string, fallback: string): string =>
    entry[field] === undefined ? fallback : requireText(entry[field], field, fail, true);
  return {
    id,
    type: 'saml',
    name: requireText(entry.name, 'name', fail, true),
    idp_metadata_url: url,
    idp_metadata: file === null ? null : readMetadataFile(file, fail),
    login_attribute: attribute('login_attribute', 'uid'),
    email_attribute: attribute('email_attribute', 'email'),
    name_attribute: attribute('name_attribute', 'displayName'),
    groups_attribute: attribute('groups_attribute', 'groups'),
    group_mappings: parseGroupMappings(entry.group_mappings, fail),
  };
}

/** Like parseUrl, but the query is kept: Entra ID names the application in it (`?appid=...`). */
function parseMetadataUrl(value: unknown, fail: Fail): string {
  if (typeof value !== 'string') return fail(`idp_metadata_url must be a string, got ${show(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('idp_metadata_url is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') return fail('idp_metadata_url must not contain credentials');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`idp_metadata_url ${quote(value)} must use http or https`);
  url.hash = '';
  return url.toString();
}

function readMetadataFile(file: string, fail: Fail): IdpMetadata {
  let xml: string;
  try {
    xml = readFileSync(file, 'utf8');
  } catch (err) {
    return fail(`idp_metadata_file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
  }
  try {
    return parseIdpMetadata(xml);
  } catch (err) {
    if (err instanceof IdpMetadataError) return fail(`idp_metadata_file: ${err.message}`);
    throw err;
  }
}

function parseGroupMappings(value: unknown, fail: Fail): GroupMapping[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(`group_mappings must be an array of {group, org, role, team?}, got ${show(value)}`);
  return value.map((m: unknown, i) => {
    const at = `group_mappings[${i}]`;
    if (!isRecord(m)) return fail(`${at} must be an object with group, org and role, got ${show(m)}`);
    const extra = Object.keys(m).find((k) => !['group', 'org', 'role', 'team'].includes(k));
    if (extra !== undefined) fail(`${at} has an unknown field ${quote(extra)}; expected group, org, role, team`);
    const role = m.role;
    if (role !== 'owner' && role !== 'member') fail(`${at}.role must be "owner" or "member", got ${show(role)}`);
    return {
      group: requireText(m.group, `${at}.group`, fail, true),
      org: requireText(m.org, `${at}.org`, fail, true),
      role: role as 'owner' | 'member',
      team: m.team === undefined || m.team === null ? null : requireText(m.team, `${at}.team`, fail, true),
    };
  });
}

function readSource(env: Record<string, string | undefined>): { label: string; data: unknown } | null {
  const inline = env.SERVICE_PROVIDERS?.trim() || null;
  const file = env.SERVICE_PROVIDERS_FILE?.trim() || null;
  if (inline !== null && file !== null) {
    throw new ProviderConfigError('SERVICE_PROVIDERS and SERVICE_PROVIDERS_FILE are both set; set only one of them');
  }
  if (inline !== null) return { label: 'SERVICE_PROVIDERS', data: parseJson(inline, 'SERVICE_PROVIDERS') };
  if (file !== null) return { label: `SERVICE_PROVIDERS_FILE (${file})`, data: parseFile(file) };
  return null;
}

function parseFile(path: string): unknown {
  const label = `SERVICE_PROVIDERS_FILE (${path})`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw new ProviderConfigError(`${label}: cannot read the file (${code})`);
  }
  return extname(path).toLowerCase() === '.json' ? parseJson(text, label) : parseYamlText(text, label);
}

// Parser messages quote the offending source, which may hold a client_secret: report positions only.
function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const pos = /position (\d+)/.exec((err as Error).message)?.[1];
    const where = pos === undefined ? '' : ` (${lineCol(text, Number(pos))})`;
    throw new ProviderConfigError(`${label}: is not valid JSON${where}`);
  }
}

function parseYamlText(text: string, label: string): unknown {
  try {
    return parseYaml(text);
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const at = err.linePos?.[0];
    const where = at ? ` (line ${at.line}, column ${at.col})` : '';
    throw new ProviderConfigError(`${label}: is not valid YAML: ${err.code}${where}`);
  }
}

function lineCol(text: string, pos: number): string {
  const before = text.slice(0, pos).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function parseEntry(entry: unknown, at: string, seen: Map<string, string>): ProviderConfig {
  if (!isRecord(entry)) {
    throw new ProviderConfigError(`${at}: must be an object with id, type, name, client_id and client_secret, got ${show(entry)}`);
  }
  const where = typeof entry.id === 'string' ? `${at} (id ${quote(entry.id)})` : at;
  const fail = (problem: string): never => {
    throw new ProviderConfigError(`${where}: ${problem}`);
  };
  const unknown = Object.keys(entry).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) fail(`unknown field ${quote(unknown)}; expected ${FIELDS.join(', ')}`);

  const id = parseId(entry.id, fail);
  const previous = seen.get(id);
  if (previous !== undefined) fail(`id ${quote(id)} is already used by ${previous}`);
  seen.set(id, at);
  const type = parseType(entry.type, fail);
  const name = requireText(entry.name, 'name', fail, true);
  const clientId = requireText(entry.client_id, 'client_id', fail, true);
  const clientSecret = requireText(entry.client_secret, 'client_secret', fail, false);
  const { url, apiUrl } = parseUrls(entry, type, fail);
  return {
    id,
    type,
    name,
    client_id: clientId,
    client_secret: clientSecret,
    url,
    api_url: apiUrl,
    scopes: parseScopes(entry.scopes, fail) ?? [...DEFAULT_SCOPES[type]],
    sync: parseSync(entry, type, fail),
  };
}

function parseSync(entry: Record<string, unknown>, type: ForgeType, fail: Fail): SyncCredentials | null {
  const given = SYNC_FIELDS.filter((f) => entry[f] !== undefined && entry[f] !== null);
  if (given.length === 0) return null;
  const webhookSecret = requireText(entry.webhook_secret, 'webhook_secret', fail, false);
  if (type === 'github') {
    if (entry.token !== undefined) fail('token is not used for github: sync goes through a GitHub App (app_id and private_key)');
    const appId = entry.app_id;
    if (!(typeof appId === 'number' && Number.isSafeInteger(appId)) && !(typeof appId === 'string' && /^\d+$/.test(appId))) {
      fail(`app_id must be the GitHub App's numeric id${appId === undefined ? ' (it is missing)' : ''}`);
    }
    if (entry.private_key !== undefined && entry.private_key_file !== undefined) fail('set private_key or private_key_file, not both');
    const privateKey = entry.private_key_file !== undefined
      ? readKeyFile(requireText(entry.private_key_file, 'private_key_file', fail, true), fail)
      : requireText(entry.private_key, 'private_key (or private_key_file)', fail, false);
    if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(privateKey)) fail('private_key must be the GitHub App\'s PEM private key');
    return { kind: 'github_app', appId: String(appId), privateKey, webhookSecret };
  }
  const app = ['app_id', 'private_key', 'private_key_file'].find((f) => entry[f] !== undefined);
  if (app !== undefined) fail(`${app} is only for github (a GitHub App); ${type} sync uses a token`);
  return { kind: 'token', token: requireText(entry.token, 'token', fail, false), webhookSecret };
}

function readKeyFile(file: string, fail: Fail): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return fail(`private_key_file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
  }
}

type Fail = (problem: string) => never;

function parseUrls(entry: Record<string, unknown>, type: ForgeType, fail: Fail): { url: string; apiUrl: string } {
  const url =
    parseUrl(entry.url, 'url', fail) ??
    PUBLIC_URL[type] ??
    fail(`url is required for type "${type}" (it has no public instance to default to)`);
  const apiUrl =
    parseUrl(entry.api_url, 'api_url', fail) ??
    defaultApiUrl(type, url) ??
    fail(`api_url is required when a ${type} url other than ${PUBLIC_URL[type]} is set`);
  return { url, apiUrl };
}

function parseId(value: unknown, fail: Fail): string {
  const id = requireText(value, 'id', fail, true);
  return /^[a-z0-9_-]+$/.test(id) ? id : fail(`id ${quote(id)} may only contain a-z, 0-9, "_" and "-"`);
}

function parseType(value: unknown, fail: Fail): ForgeType {
  if (value === undefined) fail(`type is missing; expected one of ${FORGE_TYPES.join(', ')}, oidc, saml`);
  const known = FORGE_TYPES.find((t) => t === value);
  return known ?? fail(`unknown type ${show(value)}; expected one of ${FORGE_TYPES.join(', ')}, oidc, saml`);
}

function requireText(value: unknown, field: string, fail: Fail, showValue: boolean): string {
  if (value === undefined || value === null) return fail(`${field} is missing`);
  if (typeof value === 'string' && value.trim() !== '') return value;
  return fail(`${field} must be a non-empty string${showValue ? `, got ${show(value)}` : ''}`);
}

function parseUrl(value: unknown, field: string, fail: Fail): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return fail(`${field} must be a string, got ${show(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`${field} is not a valid URL`);
  }
  // A url with user:password in it is a secret of its own: do not echo it.
  if (url.username !== '' || url.password !== '') return fail(`${field} must not contain credentials`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`${field} ${quote(value)} must use http or https`);
  if (url.search !== '' || url.hash !== '') return fail(`${field} ${quote(value)} must not have a query or fragment`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function parseScopes(value: unknown, fail: Fail): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return fail(`scopes must be an array of strings, got ${show(value)}`);
  const bad = value.find((s) => typeof s !== 'string' || !/^\S+$/.test(s));
  if (bad !== undefined) fail(`scopes must hold non-empty strings without spaces, got ${show(bad)}`);
  return [...(value as string[])];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON-quoted and cut short, so a value can never break the message onto a second line. */
function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

function show(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}
