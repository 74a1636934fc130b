import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';

describe('logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    t = await createTestApp('sqlite', { LOG_LEVEL: 'debug' }, { stream });
  });
  afterAll(() => t.close());

  it('are JSON lines with a request id, and never carry cookies, keys or OAuth codes', async () => {
    const login = await t.request({ method: 'POST', url: '/auth/dev-login' });
    const cookie = sessionCookie(login);
    const key = await t.apiKey(cookie);
    await t.request({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}`, 'x-request-id': 'trace-me-1' } });
    await t.request({ url: '/auth/callback?code=very-secret-code&state=very-secret-state', headers: { cookie } });
    await t.request({ url: '/api/v1/me', headers: { authorization: 'Bearer syd_not-a-real-key-but-secret' } });
    // Secret-looking names in any spelling the query parser reads as that name.
    await t.request({ url: '/api/v1/advisories?%74oken=spelled-token&API_KEY=upper-key&client_secret=oauth-secret&q=lodash&%E0%A4%A=undecodable-name', headers: { cookie } });

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.filter((e) => e.reqId === 'trace-me-1').length).toBeGreaterThanOrEqual(2);
    const all = lines.join('\n');
    for (const secret of [key, cookie.split('=')[1]!, decodeURIComponent(cookie.split('=')[1]!), 'very-secret-code', 'very-secret-state', 'not-a-real-key-but-secret',
      'spelled-token', 'upper-key', 'oauth-secret', 'undecodable-name']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('/auth/callback?code=[redacted]&state=[redacted]');
    // What is not secret stays, for whoever reads the log.
    expect(all).toContain('/api/v1/advisories?%74oken=[redacted]&API_KEY=[redacted]&client_secret=[redacted]&q=lodash&%E0%A4%A=[redacted]');
  });
});
