// @ts-check
import { setTimeout as sleep } from 'node:timers/promises';

/** A failure the command reports in one line, with the exit code it ends with. */
export class CliError extends Error {
  /** @param {string} message @param {number} [exitCode] */
  constructor(message, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

/**
 * @typedef {{ status: number, body: any, headers: Headers }} ApiResponse
 * @typedef {{ query?: Record<string, string | number | null | undefined>, body?: Buffer | string, headers?: Record<string, string>, json?: unknown }} RequestOptions
 * @typedef {{ url: string, key: string, userAgent: string, attempts?: number, maxDelayMs?: number, onRetry?: (message: string) => void }} ClientOptions
 */

const RETRIED = new Set([429, 500, 502, 503, 504]);

/**
 * The Scanyard API over fetch. 429 and 5xx answers, and connections that fail, are retried with
 * exponential backoff (honouring Retry-After); any other answer is final.
 * @param {ClientOptions} options
 */
export function apiClient(options) {
  const base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  const attempts = options.attempts ?? 5;
  const maxDelayMs = options.maxDelayMs ?? 30_000;

  /**
   * @param {string} method
   * @param {string} path relative to the service, e.g. api/v1/repos/lookup
   * @param {RequestOptions} [request]
   * @returns {Promise<ApiResponse>}
   */
  async function call(method, path, request = {}) {
    const url = new URL(path, base);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
    }
    /** @type {Record<string, string>} */
    const headers = { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), 'user-agent': options.userAgent, accept: 'application/json', ...request.headers };
    let body = request.body;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 1; ; attempt++) {
      /** @type {Response} */
      let res;
      try {
        res = await fetch(url, { method, headers, body });
      } catch (error) {
        if (attempt >= attempts) throw new CliError(`could not reach ${base.origin}: ${describe(error)}`);
        const delay = backoff(attempt, null, maxDelayMs);
        options.onRetry?.(`could not reach ${base.origin} (${describe(error)}); retrying in ${Math.round(delay / 1000)}s`);
        await sleep(delay);
        continue;
      }
      const text = await res.text();
      if (RETRIED.has(res.status) && attempt < attempts) {
        const delay = backoff(attempt, res.headers.get('retry-after'), maxDelayMs);
        options.onRetry?.(`${method} ${url.pathname} answered ${res.status}; retrying in ${Math.round(delay / 1000)}s`);
        await sleep(delay);
        continue;
      }
      let parsed = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = text;
      }
      return { status: res.status, body: parsed, headers: res.headers };
    }
  }

  return { call, base };
}

/**
 * Retry-After as seconds or an HTTP date, else 1s, 2s, 4s… with jitter; never above maxDelayMs.
 * @param {number} attempt @param {string | null} retryAfter @param {number} maxDelayMs
 */
export function backoff(attempt, retryAfter, maxDelayMs) {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), maxDelayMs);
  }
  const exponential = 1000 * 2 ** (attempt - 1);
  return Math.min(exponential * (0.75 + Math.random() / 2), maxDelayMs);
}

/** The problem's own words when the service sent one. @param {ApiResponse} res */
export function problemDetail(res) {
  const body = res.body;
  if (body && typeof body === 'object' && typeof body.detail === 'string') {
    const fields = Array.isArray(body.errors) ? body.errors.map((/** @type {{path: string, message: string}} */ e) => `${e.path} ${e.message}`).join('; ') : '';
    return fields ? `${body.detail} (${fields})` : body.detail;
  }
  return typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${res.status}`;
}

/** @param {unknown} error */
function describe(error) {
  if (error instanceof Error) {
    const cause = /** @type {{ code?: string, message?: string } | undefined} */ (error.cause);
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
