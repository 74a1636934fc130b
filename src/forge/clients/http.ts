import { GetError, guardedGet } from '../../net/get.js';
import { headerOf, waitAskedFor } from '../../net/rate-limit.js';

/** Why a sync pass stopped; the message is safe to show (never a token) and becomes the link's last_error. */
export class ForgeSyncError extends Error {
  override readonly name = 'ForgeSyncError';
  constructor(message: string, readonly status: number | null = null) {
    super(message);
  }
}

export interface ForgeCallOptions {
  /** The provider's display name, for messages. */
  name: string;
  allowPrivate: boolean;
  timeoutMs: number;
  /** The longest wait for a rate limit before the pass gives up. */
  maxWaitMs: number;
  sleep: (ms: number) => Promise<void>;
  clock: () => number;
}

export interface ForgeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const MAX_BYTES = 16 * 1024 * 1024;
/** Rate-limited answers retried per request before the pass stops. */
const MAX_RETRIES = 4;

/**
 * One JSON request to a forge, through the SSRF guard, waiting out rate limits as the forges
 * document them (net/rate-limit.ts). A wait longer than maxWaitMs, or too many, stops with a ForgeSyncError.
 */
export async function forgeCall(
  opts: ForgeCallOptions,
  url: string,
  init: { method?: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  doing: string,
): Promise<ForgeAnswer> {
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await guardedGet({
        url, method: init.method ?? 'GET', body: init.body, timeoutMs: opts.timeoutMs, maxBytes: MAX_BYTES, allowPrivate: opts.allowPrivate,
        headers: { accept: 'application/json', 'user-agent': 'Scanyard', ...init.headers },
      });
    } catch (error) {
      const reason = error instanceof GetError ? error.message : 'network error';
      throw new ForgeSyncError(`${opts.name} could not be reached while ${doing} (${reason})`);
    }
    const text = res.body.toString('utf8');
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      if (res.status >= 200 && res.status < 300) throw new ForgeSyncError(`${opts.name} sent an answer that is not JSON while ${doing}`, res.status);
    }
    const wait = waitAskedFor({ status: res.status, header: headerOf(res.headers), text }, opts.clock());
    if (wait === null) return { status: res.status, headers: res.headers, body };
    if (wait > opts.maxWaitMs || attempt >= MAX_RETRIES) {
      throw new ForgeSyncError(`${opts.name} rate-limited the sync while ${doing}; it stopped and will try again later`, res.status);
    }
    await opts.sleep(wait);
  }
}

/** The rel="next" target of an RFC 8288 Link header (GitHub, GitLab, Gitea all send one). */
export function nextLink(headers: Record<string, string | string[] | undefined>): string | null {
  const link = headerOf(headers)('link');
  if (!link) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]*)>\s*;(.*)/.exec(part.trim());
    if (match && /\brel="?([^";]*\s)?next(\s[^";]*)?"?/.test(match[2]!)) return match[1]!;
  }
  return null;
}

/** A next page must stay on the forge's API: a Link pointing elsewhere is not followed. */
export function sameOrigin(next: string, apiUrl: string): boolean {
  try {
    return new URL(next).origin === new URL(apiUrl).origin;
  } catch {
    return false;
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function idOf(value: unknown, what: string, name: string): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw new ForgeSyncError(`${name} sent ${what} without an id`);
}

export function textOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
