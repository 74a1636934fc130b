/** What reading a rate limit needs of an HTTP answer. */
export interface LimitedAnswer {
  status: number;
  header(name: string): string | undefined;
  /** The body as text (a JSON error's message is searched in it). */
  text: string;
}

/** GitHub's secondary limits without Retry-After: "wait at least one minute" (REST API docs, rate limits). */
const UNSAID_WAIT_MS = 60_000;
/** Past a rate limit's reset, for clocks that disagree by a little. */
const RESET_MARGIN_MS = 1000;

/**
 * How long a forge (or any API) asked us to wait before trying again, in ms, or null when the answer
 * is not a rate limit or a busy signal (403, 429, 503 only):
 * - Retry-After, in seconds or as an HTTP date (RFC 9110 10.2.3);
 * - a spent limit, `x-ratelimit-remaining: 0` (GitHub, Gitea) or `ratelimit-remaining: 0` (GitLab), until its
 *   reset in epoch seconds (`x-ratelimit-reset`, `ratelimit-reset`), plus a second;
 * - GitHub's secondary rate limit (a 403 whose message names it), or a bare 429 (Bitbucket documents
 *   no Retry-After): a minute.
 */
export function waitAskedFor(answer: LimitedAnswer, nowMs: number): number | null {
  if (answer.status !== 403 && answer.status !== 429 && answer.status !== 503) return null;
  const retryAfter = answer.header('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  const remaining = (answer.header('x-ratelimit-remaining') ?? answer.header('ratelimit-remaining'))?.trim();
  const reset = (answer.header('x-ratelimit-reset') ?? answer.header('ratelimit-reset'))?.trim();
  if (remaining === '0' && reset !== undefined && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - nowMs) + RESET_MARGIN_MS;
  if (answer.status === 403 && /secondary rate limit/i.test(answer.text)) return UNSAID_WAIT_MS;
  return answer.status === 429 ? UNSAID_WAIT_MS : null;
}

/** A header of node's IncomingHttpHeaders, the first if repeated. */
export function headerOf(headers: Record<string, string | string[] | undefined>): (name: string) => string | undefined {
  return (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
}
