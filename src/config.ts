import path from 'node:path';
import { loadProviders, ProviderConfigError, type ProviderConfig } from './auth/providers-config.js';

/** A configuration value that stops the start: main prints `message` as one line and exits 1. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string };

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
  devLogin: boolean;
  admins: string[];
  maxUploadBytes: number;
  workers: number;
  /** How long a worker's claim on an upload holds without renewal (a dead worker's upload is retaken after it). */
  uploadLeaseMs: number;
  metricsToken: string | null;
  redisUrl: string | null;
  rawRetentionDays: number;
  rateLimit: RateLimitConfig;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 1, 65535);
  const database = parseDatabaseUrl(env.DATABASE_URL ?? 'sqlite:./data/scanyard.db');
  const providers = providersFrom(env);
  return {
    port,
    host: env.HOST || '0.0.0.0',
    baseUrl: baseUrl(env.SERVICE_BASE_URL ?? `http://localhost:${port}`),
    database,
    dataDir: database.kind === 'sqlite' && database.file !== ':memory:'
      ? path.dirname(path.resolve(database.file))
      : path.resolve('data'),
    sessionSecret: sessionSecret(env),
    production: env.NODE_ENV === 'production',
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    providers,
    devLogin: providers.length === 0 && boolean(env, 'SERVICE_DEV_LOGIN', true),
    admins: list(env.SERVICE_ADMINS),
    maxUploadBytes: integer(env, 'SERVICE_MAX_UPLOAD_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
    workers: integer(env, 'SERVICE_WORKERS', 1, 0, 64),
    uploadLeaseMs: integer(env, 'SERVICE_UPLOAD_LEASE_SECONDS', 30, 2, 3600) * 1000,
    metricsToken: env.SERVICE_METRICS_TOKEN || null,
    redisUrl: redisUrl(env.REDIS_URL),
    rawRetentionDays: integer(env, 'SERVICE_RAW_RETENTION_DAYS', 30, 0, 36500),
    rateLimit: {
      perUser: integer(env, 'SERVICE_RATE_LIMIT_USER', 1200, 1, 10_000_000),
      perIp: integer(env, 'SERVICE_RATE_LIMIT_IP', 300, 1, 10_000_000),
      auth: integer(env, 'SERVICE_RATE_LIMIT_AUTH', 60, 1, 10_000_000),
    },
  };
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

function providersFrom(env: Env): ProviderConfig[] {
  try {
    return loadProviders(env);
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new ConfigError(error.message);
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
