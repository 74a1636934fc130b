import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';

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
  /**
   * Credentials Scanyard acts with on the forge itself (posting verdicts, syncing), when given: a
   * GitHub App (app_id and its PEM private key) or a token. Never logged or returned.
   */
  sync?: SyncCredentials;
}

export interface SyncCredentials {
  app_id?: string;
  private_key?: string;
  token?: string;
  webhook_secret?: string;
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
  github: ['read:user', 'user:email'],
  gitlab: ['read_user'],
  gitea: ['read:user'],
  forgejo: ['read:user'],
  bitbucket: ['account', 'email'],
};

const FIELDS = ['id', 'type', 'name', 'client_id', 'client_secret', 'url', 'api_url', 'scopes', 'app_id', 'private_key', 'private_key_file', 'token', 'webhook_secret'];

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

export function loadProviders(env: Record<string, string | undefined>): ProviderConfig[] {
  const source = readSource(env);
  if (source === null) return [];
  if (!Array.isArray(source.data)) {
    throw new ProviderConfigError(`${source.label}: must be an array of providers, got ${show(source.data)}`);
  }
  const seen = new Map<string, string>();
  return source.data.map((entry, i) => parseEntry(entry, `${source.label}[${i}]`, seen));
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
    ...syncCredentials(entry, fail),
  };
}

/** The optional credentials for acting on the forge; each a non-empty string, the key read from its file when so given. */
function syncCredentials(entry: Record<string, unknown>, fail: Fail): { sync?: SyncCredentials } {
  const optional = (field: string, showValue: boolean) => (entry[field] === undefined || entry[field] === null ? undefined : requireText(entry[field], field, fail, showValue));
  const appId = entry.app_id === undefined || entry.app_id === null ? undefined : typeof entry.app_id === 'number' ? String(entry.app_id) : optional('app_id', true);
  let privateKey = optional('private_key', false);
  const keyFile = optional('private_key_file', true);
  if (privateKey !== undefined && keyFile !== undefined) fail('set private_key or private_key_file, not both');
  if (keyFile !== undefined) {
    try {
      privateKey = readFileSync(keyFile, 'utf8');
    } catch (err) {
      fail(`private_key_file: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
    }
  }
  if ((appId === undefined) !== (privateKey === undefined)) fail('app_id and private_key (or private_key_file) go together');
  const sync: SyncCredentials = {
    ...(appId !== undefined ? { app_id: appId, private_key: privateKey } : {}),
    ...(entry.token !== undefined && entry.token !== null ? { token: optional('token', false) } : {}),
    ...(entry.webhook_secret !== undefined && entry.webhook_secret !== null ? { webhook_secret: optional('webhook_secret', false) } : {}),
  };
  return Object.keys(sync).length > 0 ? { sync } : {};
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
  if (value === undefined) fail(`type is missing; expected one of ${FORGE_TYPES.join(', ')}`);
  const known = FORGE_TYPES.find((t) => t === value);
  return known ?? fail(`unknown type ${show(value)}; expected one of ${FORGE_TYPES.join(', ')}`);
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
