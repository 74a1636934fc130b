import { describe, expect, it } from 'vitest';
import { waitAskedFor, type ForgeAnswer } from '../../src/verdicts/http.js';
import { addedLines } from '../../src/verdicts/forges.js';

const answer = (status: number, headers: Record<string, string>, text = ''): ForgeAnswer => ({ status, headers: new Headers(headers), json: null, text });
const NOW = Date.parse('2026-11-29T01:00:00Z');

describe('waitAskedFor: how long a forge asked us to wait', () => {
  it('reads Retry-After as seconds or as an HTTP date (RFC 9110 10.2.3)', () => {
    expect(waitAskedFor(answer(429, { 'retry-after': '2' }), NOW)).toBe(2000);
    expect(waitAskedFor(answer(503, { 'retry-after': 'Sun, 29 Nov 2026 01:00:30 GMT' }), NOW)).toBe(30_000);
  });

  it("waits out a spent primary rate limit until x-ratelimit-reset (GitHub's rate limit headers)", () => {
    expect(waitAskedFor(answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 90) }), NOW)).toBe(90_000);
    expect(waitAskedFor(answer(403, { 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(NOW / 1000 + 90) }), NOW)).toBeNull();
  });

  it('waits a minute on a GitHub secondary rate limit without Retry-After, as GitHub advises', () => {
    expect(waitAskedFor(answer(403, {}, '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}'), NOW)).toBe(60_000);
    expect(waitAskedFor(answer(502, {}), NOW)).toBeNull();
  });
});

describe('addedLines: the lines a pull request adds, from a unified diff hunk', () => {
  it('counts context and added lines of the new file, not removed ones, across hunks', () => {
    const patch = '@@ -1,3 +1,4 @@\n keep\n-old\n+new one\n+new two\n keep\n@@ -20,2 +21,2 @@\n context\n-gone\n+here\n\\ No newline at end of file';
    expect([...addedLines(patch)]).toEqual([2, 3, 22]);
  });
});
