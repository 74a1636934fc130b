import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';

/**
 * Input every format check accepts and something further on cannot hold: a leap second Date cannot
 * read, a year PostgreSQL refuses, a ref name that shows as another. Each is a 400 naming the field,
 * never a 500, and never stored to pass for something else.
 */
describe.each(DB_KINDS)('valid input that breaks assumptions on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let orgId: string;
  let repoId: string;
  let findingId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('owner'));
    const api = orgClient(t);
    orgId = (await api.createOrg(cookie, 'valid')).id;
    repoId = (await api.createRepo(cookie, orgId, { name: 'app' })).id;
    const res = await send({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'xss', file: 'a.js' }]) });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    findingId = (await send({ url: `/api/v1/repos/${repoId}/findings` })).json<{ id: string }[]>()[0]!.id;
  });
  afterAll(() => t.close());

  const send = (options: InjectOptions) => t.request({ ...options, headers: { cookie, ...options.headers } });
  const dismissed = { state: 'dismissed', reason: 'accepted_risk' };
  const dateFields = () => [
    { field: '/until', write: (at: string) => send({ method: 'PATCH', url: `/api/v1/findings/${findingId}`, payload: { ...dismissed, until: at } }) },
    { field: '/triage/until', write: (at: string) => send({ method: 'POST', url: `/api/v1/repos/${repoId}/findings/triage`, payload: { ids: [findingId], triage: { ...dismissed, until: at } } }) },
    { field: '/expires_at', write: (at: string) => send({ method: 'POST', url: `/api/v1/orgs/${orgId}/suppressions`, payload: { rule_id: 'xss', reason: 'accepted_risk', expires_at: at } }) },
    { field: '/expires_at', write: (at: string) => send({ method: 'POST', url: '/api/v1/apikeys', payload: { name: 'k', expires_at: at } }) },
  ];

  it.each([
    ['a leap second', '2030-06-30T23:59:60Z'],
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['year 10000 once in UTC', '9999-12-31T23:59:59-23:59'],
    ['year 0 once in UTC', '0001-01-01T00:00:00+00:01'],
    ['the 30th of February', '2030-02-30T00:00:00Z'],
    ['an offset without its colon', '2030-06-30T12:00:00+0100'],
  ])('refuses %s in every date-time field with a 400 naming it', async (_what, at) => {
    for (const { field, write } of dateFields()) {
      const res = await write(at);
      expect({ field, status: res.statusCode }, res.body).toEqual({ field, status: 400 });
      expect(res.json().errors).toContainEqual({ path: field, message: expect.stringContaining('RFC 3339') });
    }
    expect((await send({ url: `/api/v1/findings/${findingId}` })).json().state).toBe('open');
  });

  it('stores a date-time given in any offset as the instant it names, in UTC', async () => {
    const written = [];
    for (const { write } of dateFields()) {
      const res = await write('2030-06-30T23:59:59.5+02:00');
      expect(res.statusCode, res.body).toBeLessThan(300);
      written.push(res.json());
    }
    expect(written[0].dismissal.until).toBe('2030-06-30T21:59:59.500Z');
    expect(written[2].expires_at).toBe('2030-06-30T21:59:59.500Z');
    expect(written[3].expires_at).toBe('2030-06-30T21:59:59.500Z');
  });

  it.each([
    ['a zero-width space', 'ma\u200Bin'], ['a zero-width joiner', 'ma\u200Din'], ['a soft hyphen', 'ma\u00ADin'],
    ['a word joiner', 'ma\u2060in'], ['a byte order mark', '\uFEFFmain'], ['a variation selector', 'refs/heads/main\uFE0F'],
  ])('refuses a ref with %s on upload, and lists no second main', async (_what, ref) => {
    const res = await send({
      method: 'POST', url: `/api/v1/repos/${repoId}/upload?ref=${encodeURIComponent(ref)}`,
      headers: { 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'xss', file: 'a.js' }]),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ path: '/ref', message: expect.stringContaining('invisible character') }]);
    const refs = (await send({ url: `/api/v1/repos/${repoId}/refs` })).json<{ name: string }[]>();
    expect(refs.map((r) => r.name)).toEqual(['main']);
  });
});
