import { isIP } from 'node:net';
import path from 'node:path';
import {
  loadOidcProviders, loadProviders, loadSamlProviders, ProviderConfigError, type OidcProviderConfig, type ProviderConfig, type SamlProviderConfig,
} from './providers-config.js';
import type { DatabaseConfig } from './db/index.js';
import { CiIssuerConfigError, loadCiIssuers, type CiIssuerConfig } from './ci-issuers-config.js';

/** A configuration value that stops the start: main prints `message` as one line and exits 1. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface RateLimitConfig {
  /** Requests per minute for an API key or a signed-in user. */
  perUser: number;
  /** Requests per minute per IP on unauthenticated routes. */
  perIp: number;
  /** Requests per minute per IP on /auth/*. */
  auth: number;
}

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  database: DatabaseConfig;
  /** Folder for local state: the SQLite file's folder, or ./data on PostgreSQL. */
  dataDir: string;
  sessionSecret: string | null;
  production: boolean;
  logLevel: string;
  providers: ProviderConfig[];
  /** The `type: "oidc"` entries of SERVICE_PROVIDERS, beside the forges. */
  oidcProviders: OidcProviderConfig[];
  /** The `type: "saml"` entries of SERVICE_PROVIDERS. */
  samlProviders: SamlProviderConfig[];
  /** Lets a SAML provider's idp_metadata_url be http, or on loopback or private addresses (an IdP inside your network). */
  samlAllowPrivate: boolean;
  devLogin: boolean;
  admins: AdminEntry[];
  /** Fastify's trustProxy: false, a hop count, or the addresses/CIDRs of the proxies in front. */
  trustProxy: false | number | string[];
  /** The whole request (headers and body) must arrive within this; then 408 and the connection closes. */
  requestTimeoutMs: number;
  maxUploadBytes: number;
  workers: number;
  /** How long a worker's claim on an upload holds without renewal (a dead worker's upload is retaken after it). */
  uploadLeaseMs: number;
  metricsToken: string | null;
  redisUrl: string | null;
  rawRetentionDays: number;
  /** Branches (not the default) and pull requests with no upload for this long are removed; 0 keeps them. */
  refRetentionDays: number;
  /** How often housekeeping runs (retention, expired sessions, dismissals whose time is up). */
  maintenanceMs: number;
  rateLimit: RateLimitConfig;
  /** Lets webhooks reach loopback, private and link-local addresses (self-hosted receivers). */
  webhookAllowPrivate: boolean;
  /** OSV zips or JSON files fetched at start and every advisorySyncMs; empty: nothing is fetched. */
  advisorySources: string[];
  advisorySyncMs: number;
  advisoryAllowPrivate: boolean;
  /** How long a worker's claim on a webhook delivery holds without renewal. */
  webhookLeaseMs: number;
  /** CI systems whose job tokens may be exchanged for upload tokens (SERVICE_CI_ISSUERS). */
  ciIssuers: CiIssuerConfig[];
  /** Lets CI issuers be on http, loopback or private addresses (internal CI, tests). */
  ciAllowPrivate: boolean;
  /** How often every linked org is reconciled with its forge (SERVICE_FORGE_SYNC_MINUTES). */
  forgeSyncMs: number;
  /** Lets forge sync reach loopback and private addresses (an internal forge, the test emulator). */
  forgeAllowPrivate: boolean;
  /** Where raw upload bytes are kept instead of the database (SERVICE_BLOB_URL); null: the database. */
  blob: BlobConfig | null;
}

/** An S3 bucket (or an S3-compatible store at `endpoint`, addressed path-style) for raw upload bytes. */
export interface BlobConfig {
  bucket: string;
  /** Keys start with this (no leading or trailing slash; may be empty). */
  prefix: string;
  endpoint: string | null;
  /** AWS_REGION when set; us-east-1 for an endpoint of its own; else the SDK's chain decides. */
  region: string | null;
}

type Env = Record<string, string | undefined>;

export const LOOPBACK = '127.0.0.1';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 1, 65535);
  const database = parseDatabaseUrl(env.DATABASE_URL ?? 'sqlite:./data/scanyard.db');
  const providers = providersFrom(env, loadProviders);
  const oidcProviders = providersFrom(env, loadOidcProviders);
  const samlAllowPrivate = boolean(env, 'SERVICE_SAML_ALLOW_PRIVATE', false);
  const samlProviders = providersFrom(env, (e) => loadSamlProviders(e, samlAllowPrivate));
  const devLogin = providers.length === 0 && oidcProviders.length === 0 && samlProviders.length === 0 && boolean(env, 'SERVICE_DEV_LOGIN', true);
  return {
    port,
    // A password-less administrator stays on this machine unless HOST says otherwise.
    host: env.HOST || (devLogin ? LOOPBACK : '0.0.0.0'),
    baseUrl: baseUrl(env.SERVICE_BASE_URL ?? `http://localhost:${port}`),
    database,
    dataDir: database.kind === 'sqlite' && database.file !== ':memory:'
      ? path.dirname(path.resolve(database.file))
      : path.resolve('data'),
    sessionSecret: sessionSecret(env),
    production: env.NODE_ENV === 'production',
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    providers,
    oidcProviders,
    samlProviders,
    samlAllowPrivate,
    devLogin,
    admins: admins(env.SERVICE_ADMINS),
    trustProxy: trustProxy(env.SERVICE_TRUST_PROXY),
    requestTimeoutMs: integer(env, 'SERVICE_REQUEST_TIMEOUT_SECONDS', 300, 1, 3600) * 1000,
    maxUploadBytes: integer(env, 'SERVICE_MAX_UPLOAD_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    workers: integer(env, 'SERVICE_WORKERS', 1, 0, 64),
    uploadLeaseMs: integer(env, 'SERVICE_UPLOAD_LEASE_SECONDS', 30, 2, 3600) * 1000,
    metricsToken: metricsToken(env),
    redisUrl: redisUrl(env.REDIS_URL),
    rawRetentionDays: integer(env, 'SERVICE_RAW_RETENTION_DAYS', 30, 0, 36500),
    refRetentionDays: integer(env, 'SERVICE_REF_RETENTION_DAYS', 90, 0, 36500),
    maintenanceMs: integer(env, 'SERVICE_MAINTENANCE_SECONDS', 3600, 1, 86400) * 1000,
    rateLimit: {
      perUser: integer(env, 'SERVICE_RATE_LIMIT_USER', 1200, 1, 10_000_000),
      perIp: integer(env, 'SERVICE_RATE_LIMIT_IP', 300, 1, 10_000_000),
      auth: integer(env, 'SERVICE_RATE_LIMIT_AUTH', 60, 1, 10_000_000),
    },
    webhookAllowPrivate: boolean(env, 'SERVICE_WEBHOOK_ALLOW_PRIVATE', false),
    webhookLeaseMs: integer(env, 'SERVICE_WEBHOOK_LEASE_SECONDS', 30, 2, 3600) * 1000,
    advisorySources: advisorySources(env.SERVICE_ADVISORY_SOURCES),
    advisorySyncMs: integer(env, 'SERVICE_ADVISORY_SYNC_HOURS', 6, 1, 8760) * 3600 * 1000,
    advisoryAllowPrivate: boolean(env, 'SERVICE_ADVISORY_ALLOW_PRIVATE', false),
    ...ciIssuersFrom(env, port),
    forgeSyncMs: minutes(env, 'SERVICE_FORGE_SYNC_MINUTES', 60),
    forgeAllowPrivate: boolean(env, 'SERVICE_FORGE_ALLOW_PRIVATE', false),
    blob: blobConfig(env),
  };
}

/**
 * SERVICE_BLOB_URL `s3://bucket/prefix` and SERVICE_BLOB_ENDPOINT. Credentials are not settings of
 * ours: the AWS SDK's chain finds them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an
 * instance or pod role), so they are never in our configuration or logs.
 */
function blobConfig(env: Env): BlobConfig | null {
  const raw = env.SERVICE_BLOB_URL;
  const endpointRaw = env.SERVICE_BLOB_ENDPOINT || null;
  if (!raw) {
    if (endpointRaw) throw new ConfigError('SERVICE_BLOB_ENDPOINT is set without SERVICE_BLOB_URL (s3://bucket/prefix)');
    return null;
  }
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(raw);
  // S3's bucket naming rules: 3-63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit.
  if (!match || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(match[1]!)) {
    throw new ConfigError('SERVICE_BLOB_URL must be s3://bucket or s3://bucket/prefix, with a valid S3 bucket name');
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  let endpoint: string | null = null;
  if (endpointRaw) {
    let url: URL;
    try {
      url = new URL(endpointRaw);
    } catch {
      throw new ConfigError('SERVICE_BLOB_ENDPOINT is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('SERVICE_BLOB_ENDPOINT must be an http or https URL');
    if (url.username || url.password) throw new ConfigError('SERVICE_BLOB_ENDPOINT must not carry a user name or password (the AWS SDK\'s credentials are used)');
    endpoint = url.href.replace(/\/$/, '');
  }
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || (endpoint ? 'us-east-1' : null);
  return { bucket: match[1]!, prefix, endpoint, region };
}

/** Comma-separated http(s) URLs without credentials in them (they would show in the sources list). */
function advisorySources(raw: string | undefined): string[] {
  const urls = list(raw);
  for (const value of urls) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(`SERVICE_ADVISORY_SOURCES: "${value}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`SERVICE_ADVISORY_SOURCES: "${value}" must be an http or https URL`);
    if (url.username || url.password) throw new ConfigError('SERVICE_ADVISORY_SOURCES: a URL must not carry a user name or password');
  }
  return [...new Set(urls)];
}

export function parseDatabaseUrl(value: string): DatabaseConfig {
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid postgres:// URL`);
    }
    return { kind: 'postgres', url: value };
  }
  if (value.startsWith('sqlite:')) return { kind: 'sqlite', file: sqliteFile(value.slice('sqlite:'.length)) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    const scheme = value.slice(0, value.indexOf(':'));
    throw new ConfigError(
      `DATABASE_URL uses "${scheme}", which is not supported; use sqlite:PATH, a file path, or postgres://...`,
    );
  }
  return { kind: 'sqlite', file: sqliteFile(value) };
}

function sqliteFile(file: string): string {
  // sqlite:///abs/path and sqlite://./rel are common spellings; accept them.
  const cleaned = file.replace(/^\/\/(?=\/|\.)/, '');
  if (!cleaned) throw new ConfigError('DATABASE_URL names no SQLite file; use sqlite:./data/scanyard.db');
  return cleaned;
}

function providersFrom<T>(env: Env, load: (env: Env) => T[]): T[] {
  try {
    return load(env);
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function ciIssuersFrom(env: Env, port: number): { ciIssuers: CiIssuerConfig[]; ciAllowPrivate: boolean } {
  const ciAllowPrivate = boolean(env, 'SERVICE_CI_ALLOW_PRIVATE', false);
  try {
    return { ciIssuers: loadCiIssuers(env, baseUrl(env.SERVICE_BASE_URL ?? `http://localhost:${port}`), ciAllowPrivate), ciAllowPrivate };
  } catch (error) {
    if (error instanceof CiIssuerConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function sessionSecret(env: Env): string | null {
  const secret = env.SERVICE_SESSION_SECRET;
  if (secret === undefined || secret === '') {
    if (env.NODE_ENV === 'production') {
      throw new ConfigError('SERVICE_SESSION_SECRET is required when NODE_ENV=production (at least 32 characters)');
    }
    return null;
  }
  if (secret.length < 32) {
    throw new ConfigError(`SERVICE_SESSION_SECRET must be at least 32 characters (it has ${secret.length})`);
  }
  return secret;
}

function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`SERVICE_BASE_URL must be an absolute http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`SERVICE_BASE_URL must be an http(s) URL (got "${value}")`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** In production /metrics would otherwise tell anyone the traffic, routes and queue of the service. */
function metricsToken(env: Env): string | null {
  const token = env.SERVICE_METRICS_TOKEN || null;
  if (token === null && env.NODE_ENV === 'production') {
    throw new ConfigError('SERVICE_METRICS_TOKEN is required when NODE_ENV=production (GET /metrics needs it as a Bearer token)');
  }
  return token;
}

/**
 * A SERVICE_ADMINS entry. Forges let people rename and reuse logins, so a login entry is pinned to
 * the forge account that first signs in with it (see site-admins.ts); an id entry names the
 * account itself and needs no pinning.
 */
export type AdminEntry =
  | { kind: 'login'; provider: string | null; login: string; key: string }
  | { kind: 'id'; provider: string; forgeUserId: string; key: string };

/** `login`, `provider:login` or `provider:id:<forge user id>`; null when it is none of these. */
function parseAdminEntry(raw: string): AdminEntry | null {
  const parts = raw.split(':');
  if (parts.some((part) => part === '' || /\s/.test(part))) return null;
  if (parts.length === 1) return { kind: 'login', provider: null, login: parts[0]!, key: parts[0]!.toLowerCase() };
  if (parts.length === 2) {
    const [provider, login] = parts as [string, string];
    return { kind: 'login', provider, login, key: `${provider}:${login.toLowerCase()}` };
  }
  if (parts.length === 3 && parts[1] === 'id') {
    const [provider, , forgeUserId] = parts as [string, string, string];
    return { kind: 'id', provider, forgeUserId, key: raw };
  }
  return null;
}

function admins(raw: string | undefined): AdminEntry[] {
  return list(raw).map((item) => {
    const entry = parseAdminEntry(item);
    if (!entry) throw new ConfigError(`SERVICE_ADMINS: "${item}" is not a login, provider:login or provider:id:<forge user id>`);
    return entry;
  });
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(raw: string | undefined): false | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === '0' || value.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 100) throw new ConfigError(`SERVICE_TRUST_PROXY must be a hop count up to 100 or a list of proxy addresses (got ${hops})`);
    return hops;
  }
  return value.split(',').map((item) => {
    const proxy = item.trim();
    if (!PROXY_NAMES.has(proxy) && !isAddressOrCidr(proxy)) {
      throw new ConfigError(`SERVICE_TRUST_PROXY: "${proxy}" is not an IP address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
    return proxy;
  });
}

function isAddressOrCidr(value: string): boolean {
  const [address = '', bits, extra] = value.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

function redisUrl(value: string | undefined): string | null {
  if (!value) return null;
  if (!/^rediss?:\/\//.test(value)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number (got "${raw}")`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max} (got ${value})`);
  return value;
}

/** Minutes, fractions allowed (tests reconcile every few seconds), from 0.01 to a week. */
function minutes(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback * 60_000;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} must be a number of minutes (got "${raw}")`);
  const value = Number(raw);
  if (value < 0.01 || value > 10080) throw new ConfigError(`${name} must be between 0.01 and 10080 (got ${value})`);
  return Math.round(value * 60_000);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false (got "${env[name]}")`);
}

function oneOf(env: Env, name: string, allowed: string[], fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}
