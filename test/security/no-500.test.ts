/**
 * Class 4: no 500, no hang, one error shape, whatever arrives: deep JSON, absurd page numbers,
 * empty uploads, bodies that stop arriving, and requests Node refuses before any route sees them.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { get, listen, rawRequest, type RawResponse } from '../support/raw-http.js';
import { MAX_JSON_DEPTH } from '../../src/http/validation.js';
import { loadConfig } from '../../src/config.js';

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function expectProblem(res: RawResponse, status: number): void {
  expect({ status: res.status, type: res.headers['content-type']?.split(';')[0] }).toEqual({ status, type: 'application/problem+json' });
  expect(JSON.parse(res.body)).toMatchObject({ type: 'about:blank', status });
}

function post(target: string, body: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: 'localhost:8080', connection: 'close', 'content-length': String(Buffer.byteLength(body)), ...headers })
    .map(([k, v]) => `${k}: ${v}`);
  return `POST ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

describe.each(DB_KINDS)('bad input gets a 400, never a 500, on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let orgId: string;
  let repoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('prober', { admin: true }));
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'probed' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie }, payload: { name: 'r' } })).json().id;
  });
  afterAll(() => t.close());

  it('answers JSON nested thousands deep with a 400 on every JSON endpoint', async () => {
    const endpoints: [string, string][] = [
      ['POST', '/api/v1/orgs'], ['PUT', `/api/v1/orgs/${orgId}`], ['POST', `/api/v1/orgs/${orgId}/repos`],
      ['POST', `/api/v1/orgs/${orgId}/teams`], ['POST', '/api/v1/apikeys'], ['POST', '/auth/logout'], ['DELETE', `/api/v1/repos/${repoId}`],
    ];
    for (const [method, url] of endpoints) {
      for (const payload of [deepArray(20_000), deepObject(20_000), `{"name":${deepArray(5_000)}}`]) {
        const res = await t.request({ method: method as 'POST', url, headers: { cookie, 'content-type': 'application/json' }, payload });
        expect({ method, url, status: res.statusCode }).toEqual({ method, url, status: 400 });
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
    }
    // Just within the bound is judged by the schema as usual.
    const shallow = await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie, 'content-type': 'application/json' }, payload: `{"name":${deepArray(MAX_JSON_DEPTH - 2)}}` });
    expect(shallow.statusCode).toBe(400);
    expect(shallow.json().errors[0].path).toBe('/name');
  });

  it('processes or fails a scan upload nested thousands deep, never leaving it to be retried', async () => {
    const documents = [
      `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Deep","rules":[]}},"results":[{"ruleId":"r","message":{"text":"m"},"properties":${deepObject(100_000)}}]}]}`,
      `{"bomFormat":"CycloneDX","specVersion":"1.5","components":[${'{"type":"library","name":"c","components":['.repeat(20_000)}${']}'.repeat(20_000)}]}`,
    ];
    for (const payload of documents) {
      const accepted = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie, 'content-type': 'application/json' }, payload });
      expect([202, 400]).toContain(accepted.statusCode);
      if (accepted.statusCode !== 202) continue;
      await t.drain();
      const upload = (await t.request({ url: `/api/v1/uploads/${accepted.json().id}`, headers: { cookie } })).json();
      expect(['complete', 'failed']).toContain(upload.status);
    }
  });

  it.each([
    'page=1e300', 'page=Infinity', 'page=-Infinity', 'page=NaN', 'page=-1', 'page=0', 'page=1.5', 'page=99999999999999999999',
    'page=9007199254740993', 'page=10000001', 'per_page=1e300', 'per_page=Infinity', 'per_page=-5', 'per_page=2.5', 'per_page=99999999999',
    'page=1&page=2',
  ])('refuses %s with a 400 on every list', async (query) => {
    for (const path of ['/api/v1/orgs', `/api/v1/repos/${repoId}/findings`, `/api/v1/repos/${repoId}/components`, `/api/v1/repos/${repoId}/uploads`, `/api/v1/orgs/${orgId}/audit`, '/api/v1/audit', `/api/v1/orgs/${orgId}/members`]) {
      const res = await t.request({ url: `${path}?${query}`, headers: { cookie } });
      expect({ path, status: res.statusCode }).toEqual({ path, status: 400 });
      expect(res.json().errors[0].path).toMatch(/^\/query\/(page|per_page)$/);
    }
  });

  it('still serves the last accepted page, empty', async () => {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?page=10000000&per_page=10000`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
    expect(res.headers['x-per-page']).toBe('100');
  });

  it('answers an upload with no body at all with a 400', async () => {
    const url = `/api/v1/repos/${repoId}/upload`;
    for (const headers of [{}, { 'content-length': '0' }, { 'content-type': 'application/json', 'content-length': '0' }, { 'content-type': 'multipart/form-data; boundary=x', 'content-length': '0' }]) {
      const res = await t.request({ method: 'POST', url, headers: { cookie, ...headers } });
      expect({ headers, status: res.statusCode }).toEqual({ headers, status: 400 });
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
  });
});

describe('over a socket', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  let repoId: string;
  const TIMEOUT_S = 2;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SERVICE_REQUEST_TIMEOUT_SECONDS: String(TIMEOUT_S) });
    const { cookie } = await t.user('socketeer', { admin: true });
    key = await t.apiKey(cookie);
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'sock' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie }, payload: { name: 'r' } })).json().id;
    port = await listen(t.app);
  });
  afterAll(() => t.close());

  it('answers deep JSON with a 400 problem', async () => {
    const res = await rawRequest(port, post('/api/v1/orgs', deepArray(50_000), { authorization: `Bearer ${key}`, 'content-type': 'application/json' }));
    expectProblem(res, 400);
  });

  it('answers an upload without a body with a 400 problem, with or without Content-Length: 0', async () => {
    for (const request of [
      `POST /api/v1/repos/${repoId}/upload HTTP/1.1\r\nhost: localhost:8080\r\nauthorization: Bearer ${key}\r\nconnection: close\r\n\r\n`,
      post(`/api/v1/repos/${repoId}/upload`, '', { authorization: `Bearer ${key}` }),
    ]) expectProblem(await rawRequest(port, request), 400);
  });

  it('answers 408 and closes when a body stops arriving, within the request timeout', async () => {
    for (const [target, type] of [['/api/v1/orgs', 'application/json'], [`/api/v1/repos/${repoId}/upload`, 'application/octet-stream']]) {
      const partial = `POST ${target} HTTP/1.1\r\nhost: localhost:8080\r\nauthorization: Bearer ${key}\r\ncontent-type: ${type}\r\ncontent-length: 1000\r\n\r\n{"name":`;
      const res = await rawRequest(port, partial, 15_000);
      expect(res.closedByServer).toBe(true);
      expectProblem(res, 408);
      expect(res.elapsedMs).toBeLessThan((TIMEOUT_S + 3) * 1000);
    }
  });

  it('answers 408 when the headers stop arriving', async () => {
    const res = await rawRequest(port, 'GET /api/v1/me HTTP/1.1\r\nhost: localhost:8080\r\nx-slow: ', 15_000);
    expect(res.closedByServer).toBe(true);
    expectProblem(res, 408);
    expect(res.elapsedMs).toBeLessThan((TIMEOUT_S + 3) * 1000);
  });

  it('answers errors raised before routing as problem+json', async () => {
    expectProblem(await rawRequest(port, get('/api/v1/me', { 'x-big': 'a'.repeat(20_000) })), 431);
    expectProblem(await rawRequest(port, get('/api/v1/orgs/%zz')), 400);
    expectProblem(await rawRequest(port, get('/api/v1/orgs/%E0%A4%A')), 400);
    expectProblem(await rawRequest(port, get('/api/v1/me', {}, 'BREW')), 400);
    expectProblem(await rawRequest(port, 'GET /api/v1/me HTTP/9.9\r\nhost: localhost:8080\r\n\r\n'), 400);
    expectProblem(await rawRequest(port, 'this is not http\r\n\r\n'), 400);
    expectProblem(await rawRequest(port, `GET /api/v1/me HTTP/1.1\r\nhost: localhost:8080\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n`), 400);
    // A method Node knows but no route has.
    expectProblem(await rawRequest(port, get('/api/v1/me', {}, 'PROPFIND')), 404);
  });

  it('still serves the next request normally', async () => {
    const res = await rawRequest(port, get('/api/v1/me', { authorization: `Bearer ${key}` }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).login).toBe('socketeer');
  });
});

describe('SERVICE_REQUEST_TIMEOUT_SECONDS', () => {
  it('defaults to Node\'s own five minutes and refuses what would switch the timeout off', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).requestTimeoutMs).toBe(300_000);
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:', SERVICE_REQUEST_TIMEOUT_SECONDS: '30' }).requestTimeoutMs).toBe(30_000);
    for (const value of ['0', '-1', '1.5', 'never', '3601']) {
      expect(() => loadConfig({ DATABASE_URL: 'sqlite::memory:', SERVICE_REQUEST_TIMEOUT_SECONDS: value })).toThrow(/^SERVICE_REQUEST_TIMEOUT_SECONDS/);
    }
  });
});

describe('while shutting down', () => {
  it('answers a request that arrives during close with a 503 problem and closes the connection', async () => {
    const t = await createTestApp('sqlite');
    const port = await listen(t.app);
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += String(chunk);
    });
    await new Promise((resolve) => socket.on('connect', resolve));
    // Headers half sent: the connection is busy, so close does not drop it as idle.
    socket.write('GET /healthz HTTP/1.1\r\nhost: localhost:8080\r\nx-part: ');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = t.app.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write('1\r\n\r\n');
    await new Promise((resolve) => socket.on('close', resolve));
    await closing;
    await t.db.close();
    await t.database.drop();
    const [head = '', body = ''] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head.toLowerCase()).toContain('content-type: application/problem+json');
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toMatchObject({ status: 503, title: 'Service Unavailable' });
  });
});
