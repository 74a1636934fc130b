import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';

const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;

/** Inputs a careless or hostile client sends. None may give a 500, hang, or stop the service. */
const HOSTILE: [string, string | Buffer, Record<string, string>][] = [
  ['multipart without a boundary', 'abc', { 'content-type': 'multipart/form-data' }],
  ['truncated multipart', '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\n{"a":', { 'content-type': 'multipart/form-data; boundary=x' }],
  ['a JSON array nested 200,000 deep', deep, { 'content-type': 'application/json' }],
  ['SARIF results nested 200,000 deep', `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":${deep}}]}`, {}],
  ['a JSON object nested 100,000 deep', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, {}],
  ['NUL bytes', Buffer.from([0, 0, 0, 123, 0]), {}],
  ['invalid UTF-8 in a SARIF', Buffer.concat([Buffer.from('{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}},"results":[]}]}')]), {}],
  ['an unsupported Content-Encoding', Buffer.from('{"a":1}'), { 'content-encoding': 'br' }],
  ['a broken gzip stream', Buffer.from([0x1f, 0x8b, 1, 2, 3]), {}],
  ['XML with no root element', '<?xml version="1.0"?>', {}],
  ['XML nested 100,000 deep', `<bom>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</bom>`, {}],
  ['SPDX tag-value with empty values', `SPDXVersion: SPDX-2.3\nPackageName:\nPackageName: x\nPackageVersion: ${'a'.repeat(1000)}`, {}],
  ['SARIF with wrong types everywhere', '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":5,"rules":"x"}},"results":[{"ruleId":{},"message":null,"locations":"x"}]}]}', {}],
  ['CycloneDX with wrong types', '{"bomFormat":"CycloneDX","specVersion":"1.5","components":[{"name":null},{"components":{"x":1}}],"vulnerabilities":[{"affects":5}]}', {}],
  ['NUL characters inside SARIF strings', '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"nul\\u0000tool"}},"results":[{"ruleId":"r\\u0000","message":{"text":"a\\u0000b"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"x\\u0000.js"}}}]}]}]}', {}],
  ['findings with a __proto__ key', '{"schema":"scanyard-findings/1","tool":{"name":"x"},"findings":[{"rule_id":"a","message":"m","severity":"high","__proto__":{"x":1}}]}', {}],
];

describe.each(DB_KINDS)('hostile uploads on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let repo: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('fuzz'));
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'fuzz' } })).json().id;
    repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie }, payload: { name: 'r' } })).json().id;
  });
  afterAll(() => t.close());

  it.each(HOSTILE)('%s: a clear 4xx, or an upload that ends with a reason', async (_name, body, headers) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie, ...headers }, payload: body });
    if (res.statusCode !== 202) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json().detail).toEqual(expect.any(String));
      return;
    }
    await t.drain();
    const upload = (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie } })).json();
    expect(['complete', 'failed']).toContain(upload.status);
    if (upload.status === 'failed') expect(upload.error.length).toBeGreaterThan(10);
    expect((await t.request({ url: '/healthz' })).statusCode).toBe(200);
  });
});
