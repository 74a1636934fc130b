/**
 * Class 2: forwarded headers count only from configured proxies; state-changing cookie requests and
 * dev login need SERVICE_BASE_URL's origin; with dev login on, only SERVICE_BASE_URL's host is served.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { get, listen, rawRequest } from '../support/raw-http.js';
import { loadConfig } from '../../src/config.js';

const BASE = 'http://localhost:8080';
const someIp = () => `2001:db8::${randomBytes(8).toString('hex').match(/.{4}/g)!.join(':')}`;

describe.each(DB_KINDS)('forwarded headers on %s', (kind) => {
  describe('without SERVICE_TRUST_PROXY', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { SERVICE_RATE_LIMIT_AUTH: '3' });
    });
    afterAll(() => t.close());

    it('keys the rate limit on the socket address, whatever X-Forwarded-For says', async () => {
      const ip = someIp();
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await t.request({ url: '/auth/providers', remoteAddress: ip, headers: { 'x-forwarded-for': someIp() } })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it('records the socket address in the audit log, not a forged one', async () => {
      const ip = someIp();
      const res = await t.request({ method: 'POST', url: '/auth/dev-login', remoteAddress: ip, headers: { 'x-forwarded-for': '198.51.100.7' } });
      expect(res.statusCode).toBe(200);
      const events = (await t.request({ url: '/api/v1/audit?per_page=1', headers: { cookie: sessionCookie(res) } })).json();
      expect(events[0]).toMatchObject({ action: 'dev_login', ip });
    });
  });

  describe('with SERVICE_TRUST_PROXY naming the proxy', () => {
    const proxy = '2001:db8::1';
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { SERVICE_RATE_LIMIT_AUTH: '3', SERVICE_TRUST_PROXY: `${proxy}, 10.0.0.0/8` });
    });
    afterAll(() => t.close());

    it('keys the rate limit on the client the proxy names', async () => {
      const client = someIp();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await t.request({ url: '/auth/providers', remoteAddress: proxy, headers: { 'x-forwarded-for': client } })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
      // Another client behind the same proxy has its own count.
      expect((await t.request({ url: '/auth/providers', remoteAddress: proxy, headers: { 'x-forwarded-for': someIp() } })).statusCode).toBe(200);
    });

    it('records the forwarded client in the audit log, but only from the proxy', async () => {
      const viaProxy = await t.request({ method: 'POST', url: '/auth/dev-login', remoteAddress: proxy, headers: { 'x-forwarded-for': '198.51.100.7' } });
      const cookie = sessionCookie(viaProxy);
      expect((await t.request({ url: '/api/v1/audit?per_page=1', headers: { cookie } })).json()[0].ip).toBe('198.51.100.7');
      const direct = someIp();
      await t.request({ method: 'POST', url: '/auth/dev-login', remoteAddress: direct, headers: { 'x-forwarded-for': '198.51.100.8' } });
      expect((await t.request({ url: '/api/v1/audit?per_page=1', headers: { cookie } })).json()[0].ip).toBe(direct);
    });
  });

  it('trusts a hop count of proxies', async () => {
    const t = await createTestApp(kind, { SERVICE_TRUST_PROXY: '1' });
    try {
      const res = await t.request({ method: 'POST', url: '/auth/dev-login', remoteAddress: someIp(), headers: { 'x-forwarded-for': '198.51.100.9, 203.0.113.5' } });
      const events = (await t.request({ url: '/api/v1/audit?per_page=1', headers: { cookie: sessionCookie(res) } })).json();
      // One hop: the address the proxy itself saw, the last in the list, never the client-written first one.
      expect(events[0].ip).toBe('203.0.113.5');
    } finally {
      await t.close();
    }
  });
});

describe('SERVICE_TRUST_PROXY settings', () => {
  const base = { DATABASE_URL: 'sqlite::memory:' };
  it.each([
    [undefined, false], ['', false], ['0', false], ['false', false], ['2', 2],
    ['127.0.0.1', ['127.0.0.1']], ['10.0.0.0/8, fd00::/8,loopback', ['10.0.0.0/8', 'fd00::/8', 'loopback']],
  ])('reads %j as %j', (value, expected) => {
    expect(loadConfig({ ...base, ...(value === undefined ? {} : { SERVICE_TRUST_PROXY: value }) }).trustProxy).toEqual(expected);
  });

  it.each(['true', 'proxy.example', '10.0.0.0/33', '1.2.3', '::1/129', '101', '10.0.0.1/8/8'])('refuses %j with a message naming the variable', (value) => {
    expect(() => loadConfig({ ...base, SERVICE_TRUST_PROXY: value })).toThrow(/^SERVICE_TRUST_PROXY/);
  });
});

describe('origin of state-changing requests', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    // A provider is configured, so Host is not checked here: the Origin check stands alone.
    t = await createTestApp('sqlite', {
      SERVICE_TRUST_PROXY: '1',
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'gh', type: 'github', name: 'GitHub', client_id: 'c', client_secret: 's' }]),
    });
    ({ cookie } = await t.user('clicker'));
  });
  afterAll(() => t.close());

  const createOrg = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/orgs', headers: { host: 'localhost:8080', cookie, ...headers }, payload: { name: `o-${randomBytes(4).toString('hex')}` } });

  it('accepts our own Origin, or Sec-Fetch-Site: same-origin without one', async () => {
    expect((await createOrg({ origin: BASE })).statusCode).toBe(201);
    expect((await createOrg({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(201);
  });

  it('refuses any other Origin, even one matching forged forwarded headers or the Host', async () => {
    const variants: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      { origin: 'http://evil.example:8080', host: 'evil.example:8080' },
      { origin: 'null' },
      { origin: 'http://localhost:8081' },
      { origin: 'https://localhost:8080' },
      { origin: BASE.toUpperCase() },
      { origin: `${BASE}/` },
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of variants) {
      const res = await createOrg(headers);
      expect({ headers, status: res.statusCode }).toEqual({ headers, status: 403 });
    }
  });

  it('refuses a cookie request with neither header, and with a cross-site or same-site Sec-Fetch-Site', async () => {
    const variants: Record<string, string>[] = [{}, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { 'sec-fetch-site': 'none' }];
    for (const headers of variants) {
      expect((await createOrg(headers)).statusCode).toBe(403);
    }
  });

  it('leaves API keys alone: they are never sent by a browser on its own', async () => {
    const key = await t.apiKey(cookie);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/orgs', headers: { host: 'localhost:8080', authorization: `Bearer ${key}`, origin: 'https://evil.example' }, payload: { name: 'by-key' } });
    expect(res.statusCode).toBe(201);
  });
});

describe('dev login and DNS rebinding', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    port = await listen(t.app);
  });
  afterAll(() => t.close());

  const devLogin = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/auth/dev-login', headers: { host: 'localhost:8080', ...headers } });

  it('signs in only from our own origin', async () => {
    expect((await devLogin({ origin: BASE })).statusCode).toBe(200);
    expect((await devLogin({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    const variants: Record<string, string>[] = [{}, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of variants) {
      const res = await devLogin(headers);
      expect(res.statusCode).toBe(403);
      expect(res.cookies.find((c) => c.name === 'scanyard_session')).toBeUndefined();
    }
  });

  it('answers only to the host of SERVICE_BASE_URL while dev login is on, forwarded host or not', async () => {
    for (const host of ['rebound.evil.example:8080', 'rebound.evil.example', '127.0.0.1:8080', 'localhost:9999']) {
      const login = await devLogin({ host, origin: `http://${host}` });
      expect({ host, status: login.statusCode }).toEqual({ host, status: 421 });
      const forwarded = await devLogin({ host, origin: BASE, 'x-forwarded-host': 'localhost:8080' });
      expect(forwarded.statusCode).toBe(421);
      const raw = await rawRequest(port, get('/api/v1/me', { host }));
      expect(raw.status).toBe(421);
      expect(raw.headers['content-type']).toContain('application/problem+json');
    }
    const noHost = await rawRequest(port, 'GET /api/v1/me HTTP/1.0\r\n\r\n');
    expect(noHost.status).toBe(421);
    expect((await rawRequest(port, get('/api/v1/me', { host: 'LOCALHOST:8080' }))).status).toBe(401);
    // Health probes show nothing and change nothing: a container's healthcheck by IP still works.
    expect((await rawRequest(port, get('/healthz', { host: '172.17.0.2:8080' }))).status).toBe(200);
    expect((await rawRequest(port, get('/readyz', { host: '172.17.0.2:8080' }))).status).toBe(200);
  });

  it('does not check Host once a provider is configured (a proxy may name us as it likes)', async () => {
    const withProvider = await createTestApp('sqlite', {
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'gh', type: 'github', name: 'GitHub', client_id: 'c', client_secret: 's' }]),
    });
    try {
      expect((await withProvider.app.inject({ url: '/healthz', headers: { host: 'internal-name:3000' } })).statusCode).toBe(200);
    } finally {
      await withProvider.close();
    }
  });
});
