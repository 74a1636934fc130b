import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createTestApp, type TestApp } from '../support/app.js';
import { sarifLog } from '../support/sarif.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
/** A fresh documentation-range address each call, so counters in a shared Redis never collide between runs. */
const someIp = () => `2001:db8::${randomBytes(8).toString('hex').match(/.{4}/g)!.join(':')}`;

describe('metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SERVICE_METRICS_TOKEN: 'metrics-token-123' });
  });
  afterAll(() => t.close());

  it('serves Prometheus text that a Prometheus parser reads, behind its token', async () => {
    const { cookie } = await t.user('ops');
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'ops' } })).json().id;
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie }, payload: { name: 'r' } })).json().id;
    await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie }, payload: sarifLog([{ rule: 'a', file: 'b' }]) });
    await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie, 'content-type': 'application/json' }, payload: '{"version":"1.0.0","runs":[]}' });
    const beforeDrain = parsePrometheusTextFormat((await t.request({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-123' } })).body);
    expect(beforeDrain.find((f) => f.name === 'scanyard_upload_queue_depth')!.metrics[0]!.value).toBe('2');
    await t.drain();
    await t.request({ url: `/api/v1/repos/${repo}/status`, headers: { cookie } });

    expect((await t.request({ url: '/metrics' })).statusCode).toBe(401);
    expect((await t.request({ url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    const res = await t.request({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-123' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const families = new Map(parsePrometheusTextFormat(res.body).map((f) => [f.name, f]));
    const requests = families.get('scanyard_http_requests_total')!;
    expect(requests.type).toBe('COUNTER');
    expect(requests.metrics).toContainEqual({ labels: { method: 'GET', route: '/api/v1/repos/:id/status', status: '200' }, value: '1' });
    expect(families.get('scanyard_http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(families.get('scanyard_uploads_received_total')!.metrics).toContainEqual({ labels: { format: 'sarif' }, value: '2' });
    expect(families.get('scanyard_uploads_completed_total')!.metrics).toContainEqual({ labels: { format: 'sarif' }, value: '1' });
    expect(families.get('scanyard_uploads_failed_total')!.metrics).toContainEqual({ labels: { format: 'sarif' }, value: '1' });
    // The +Inf bucket counts every observation: one upload was processed to completion.
    expect(families.get('scanyard_upload_processing_seconds')!.metrics[0]!.buckets!['+Inf']).toBe('1');
    expect(families.get('scanyard_upload_queue_depth')!.metrics[0]!.value).toBe('0');
    expect(families.get('scanyard_upload_oldest_pending_age_seconds')!.metrics[0]!.value).toBe('0');
  });
});

describe('rate limits in memory', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SERVICE_RATE_LIMIT_AUTH: '3', SERVICE_RATE_LIMIT_USER: '5', SERVICE_RATE_LIMIT_IP: '4' });
  });
  afterAll(() => t.close());

  it('limits /auth/* per IP and answers 429 with Retry-After and RateLimit headers', async () => {
    const ip = someIp();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.request({ url: '/auth/providers', remoteAddress: ip })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await t.request({ url: '/auth/providers', remoteAddress: ip });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['content-type']).toContain('application/problem+json');
    expect(limited.json()).toMatchObject({ status: 429, title: 'Too Many Requests' });
    // Another address is not affected.
    expect((await t.request({ url: '/auth/providers', remoteAddress: someIp() })).statusCode).toBe(200);
  });

  it('limits each API key on its own, wherever it comes from', async () => {
    const { cookie } = await t.user('busy');
    const first = await t.apiKey(cookie);
    const second = await t.apiKey(cookie);
    const call = (key: string) => t.request({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}` }, remoteAddress: someIp() });
    for (let i = 0; i < 5; i++) expect((await call(first)).statusCode).toBe(200);
    expect((await call(first)).statusCode).toBe(429);
    expect((await call(second)).statusCode).toBe(200);
  });

  it('limits anonymous API calls per IP', async () => {
    const ip = someIp();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.request({ url: '/api/v1/orgs', remoteAddress: ip })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });

  it('does not limit health checks', async () => {
    const ip = someIp();
    for (let i = 0; i < 10; i++) expect((await t.request({ url: '/healthz', remoteAddress: ip })).statusCode).toBe(200);
  });
});

describe.runIf(REDIS_URL)('rate limits shared through Redis', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = { REDIS_URL: REDIS_URL!, SERVICE_RATE_LIMIT_AUTH: '3' };
    a = await createTestApp('sqlite', env);
    b = await createTestApp('sqlite', env);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('holds one limit across two instances', async () => {
    const ip = someIp();
    expect((await a.request({ url: '/auth/providers', remoteAddress: ip })).statusCode).toBe(200);
    expect((await b.request({ url: '/auth/providers', remoteAddress: ip })).statusCode).toBe(200);
    expect((await a.request({ url: '/auth/providers', remoteAddress: ip })).statusCode).toBe(200);
    const fourth = await b.request({ url: '/auth/providers', remoteAddress: ip });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.headers['retry-after']).toBeDefined();
  });
});
