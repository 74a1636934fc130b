import { ForgeError } from './types.js';

/** What every forge client needs to talk to its forge. */
export interface ForgeHttp {
  /** The provider's display name, used in user-facing messages. */
  name: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

export interface JsonAnswer {
  status: number;
  ok: boolean;
  /** Parsed JSON; null for an empty or non-JSON body on a failed answer. */
  body: unknown;
}

/** One request with a timeout; network trouble and bad JSON on success become ForgeError. */
export async function callJson(http: ForgeHttp, url: string, init: RequestInit, doing: string): Promise<JsonAnswer> {
  const headers = new Headers(init.headers);
  headers.set('Accept', 'application/json');
  headers.set('User-Agent', 'Scanyard');
  let res: Response;
  let text: string;
  try {
    // manual: a redirected POST (307/308) would resend the client secret to wherever it points.
    res = await http.fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(http.timeoutMs) });
    text = await res.text();
  } catch (err) {
    throw transportError(http, err, doing);
  }
  return { status: res.status, ok: res.ok, body: parseBody(http, text, res.ok, doing) };
}

export async function getWithToken(http: ForgeHttp, url: string, token: string, doing: string): Promise<JsonAnswer> {
  return callJson(http, url, { method: 'GET', headers: { Authorization: `Bearer ${token}` } }, doing);
}

export function expectOk(http: ForgeHttp, answer: JsonAnswer, doing: string): unknown {
  if (!answer.ok) throw new ForgeError(`${http.name} answered HTTP ${answer.status} while ${doing}`, 'http');
  return answer.body;
}

export function malformed(http: ForgeHttp, what: string): ForgeError {
  return new ForgeError(`${http.name} sent ${what}`, 'malformed');
}

function parseBody(http: ForgeHttp, text: string, ok: boolean, doing: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (ok) throw malformed(http, `an answer that is not valid JSON while ${doing}`);
    return null;
  }
}

function transportError(http: ForgeHttp, err: unknown, doing: string): ForgeError {
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ForgeError(`${http.name} did not answer within ${http.timeoutMs / 1000} s while ${doing}`, 'timeout');
  }
  return new ForgeError(`${http.name} could not be reached while ${doing}`, 'unreachable', { cause: err });
}
