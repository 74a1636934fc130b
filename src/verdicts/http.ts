/** How long one request to a forge may take, answer included. */
const TIMEOUT_MS = 15_000;
/** How much of a forge's answer the delivery log keeps. */
const BODY_KEPT = 1024;

export interface ForgeAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null when the body is empty or not JSON. */
  json: unknown;
  /** The first BODY_KEPT characters, for the delivery log. */
  text: string;
}

/** The forge answered, but not as hoped: the delivery records the status and waits as the forge asks. */
export class ForgeRefused extends Error {
  override readonly name = 'ForgeRefused';
  constructor(readonly answer: ForgeAnswer, doing: string) {
    super(`the forge answered HTTP ${answer.status} while ${doing}`);
  }
}

/**
 * One JSON request to a forge's API. The API's address is the operator's configuration (a provider
 * entry), never something a user typed, so private addresses are allowed (self-hosted forges live
 * there); redirects are not followed, since they would carry the token elsewhere.
 */
export async function forgeRequest(method: string, url: string, token: string, body: unknown, doing: string, extra: Record<string, string> = {}): Promise<ForgeAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Scanyard', ...extra, authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = (await res.text()).replace(/\0/g, '');
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const answer = { status: res.status, headers: res.headers, json, text: text.slice(0, BODY_KEPT) };
  if (res.status < 200 || res.status >= 300) throw new ForgeRefused(answer, doing);
  return answer;
}

/**
 * How long the forge asked us to wait before trying again, in ms, or null when it did not say:
 * Retry-After (seconds or an HTTP date), else a rate limit spent (x-ratelimit-remaining: 0) until its
 * reset (epoch seconds, as GitHub and Gitea send it), else a GitHub secondary rate limit (403 naming it), a minute.
 */
export function waitAskedFor(answer: ForgeAnswer, nowMs: number): number | null {
  const retryAfter = answer.headers.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  if (answer.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(answer.headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - nowMs);
  }
  if (answer.status === 403 && /secondary rate limit/i.test(answer.text)) return 60_000;
  return null;
}
