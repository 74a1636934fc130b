import net from 'node:net';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { listen } from '../support/raw-http.js';

describe('logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    t = await createTestApp('sqlite', { LOG_LEVEL: 'debug' }, { stream });
  });
  afterAll(() => t.close());

  it('are JSON lines with a request id, and never carry cookies, keys, OAuth codes or SAML sign-in tickets', async () => {
    const login = await t.request({ method: 'POST', url: '/auth/dev-login' });
    const cookie = sessionCookie(login);
    const key = await t.apiKey(cookie);
    await t.request({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}`, 'x-request-id': 'trace-me-1' } });
    await t.request({ url: '/auth/callback?code=very-secret-code&state=very-secret-state', headers: { cookie } });
    await t.request({ url: '/auth/saml/corp/complete?ticket=very-secret-ticket' });
    await t.request({ url: '/api/v1/me', headers: { authorization: 'Bearer syd_not-a-real-key-but-secret' } });
    // Secret-looking names in any spelling the query parser reads as that name.
    await t.request({ url: '/api/v1/advisories?%74oken=spelled-token&API_KEY=upper-key&client_secret=oauth-secret&q=lodash&%E0%A4%A=undecodable-name', headers: { cookie } });

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.filter((e) => e.reqId === 'trace-me-1').length).toBeGreaterThanOrEqual(2);
    const all = lines.join('\n');
    for (const secret of [key, cookie.split('=')[1]!, decodeURIComponent(cookie.split('=')[1]!), 'very-secret-code', 'very-secret-state', 'very-secret-ticket', 'not-a-real-key-but-secret',
      'spelled-token', 'upper-key', 'oauth-secret', 'undecodable-name']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('/auth/callback?code=[redacted]&state=[redacted]');
    expect(all).toContain('/auth/saml/corp/complete?ticket=[redacted]');
    // What is not secret stays, for whoever reads the log.
    expect(all).toContain('/api/v1/advisories?%74oken=[redacted]&API_KEY=[redacted]&client_secret=[redacted]&q=lodash&%E0%A4%A=[redacted]');
  });

  it('log a client that hangs up mid-upload as the client\'s doing, not as a server error', async () => {
    const login = await t.request({ method: 'POST', url: '/auth/dev-login' });
    const key = await t.apiKey(sessionCookie(login), { scopes: ['upload'] });
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: sessionCookie(login) }, payload: { name: 'hangup' } })).json();
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org.id}/repos`, headers: { cookie: sessionCookie(login) }, payload: { name: 'r' } })).json();
    const port = await listen(t.app);
    const before = lines.length;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(`POST /api/v1/repos/${repo.id}/upload HTTP/1.1\r\nhost: localhost:8080\r\nauthorization: Bearer ${key}\r\ncontent-type: application/sarif+json\r\ncontent-length: 100000\r\n\r\n{"version":"2.1.0","runs":[`);
    await sleep(200);
    socket.destroy();
    await sleep(300);
    const entries = lines.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(entries.filter((e) => e.level >= 50)).toEqual([]);
    expect(entries.map((e) => e.msg)).toContain('the client went away before its request was read');
  });
});
