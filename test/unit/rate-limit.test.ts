import { describe, expect, it } from 'vitest';
import { headerOf, waitAskedFor } from '../../src/net/rate-limit.js';

// One reading of "wait before trying again" for forge sync and verdicts alike.
const answer = (status: number, headers: Record<string, string>, text = '') => ({ status, header: headerOf(headers), text });
const NOW = Date.parse('2026-11-29T01:00:00Z');

describe('waitAskedFor: how long a forge asked us to wait', () => {
  it('reads Retry-After as seconds or as an HTTP date (RFC 9110 10.2.3)', () => {
    expect(waitAskedFor(answer(429, { 'retry-after': '2' }), NOW)).toBe(2000);
    expect(waitAskedFor(answer(503, { 'retry-after': 'Sun, 29 Nov 2026 01:00:30 GMT' }), NOW)).toBe(30_000);
    expect(waitAskedFor(answer(503, { 'retry-after': 'Sun, 29 Nov 2026 00:59:00 GMT' }), NOW)).toBe(0);
  });

  it("waits out a spent limit until its reset and a second more (GitHub's x-ratelimit-*, GitLab's ratelimit-*)", () => {
    expect(waitAskedFor(answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 90) }), NOW)).toBe(91_000);
    expect(waitAskedFor(answer(429, { 'ratelimit-remaining': '0', 'ratelimit-reset': String(NOW / 1000 + 30) }), NOW)).toBe(31_000);
    expect(waitAskedFor(answer(403, { 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(NOW / 1000 + 90) }), NOW)).toBeNull();
  });

  it('waits a minute on a GitHub secondary rate limit without Retry-After, as GitHub advises, and on a bare 429', () => {
    expect(waitAskedFor(answer(403, {}, '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}'), NOW)).toBe(60_000);
    expect(waitAskedFor(answer(429, {}), NOW)).toBe(60_000);
  });

  it('is no wait for a refusal that is not a limit', () => {
    expect(waitAskedFor(answer(403, {}, '{"message":"Resource not accessible by integration"}'), NOW)).toBeNull();
    expect(waitAskedFor(answer(502, {}), NOW)).toBeNull();
    expect(waitAskedFor(answer(404, { 'retry-after': '5' }), NOW)).toBeNull();
    expect(waitAskedFor(answer(503, {}), NOW)).toBeNull();
  });
});
