import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';

/** An OSV 1.6 record affecting each named package (ecosystem/name) below 2.0.0. */
function osv(id: string, modified: string, packages: string[], summary = `Advisory ${id}`) {
  return {
    schema_version: '1.6.0', id, modified, published: '2024-01-01T00:00:00Z', summary,
    affected: packages.map((p) => {
      const [ecosystem, name] = p.split('/') as [string, string];
      return { package: { ecosystem, name }, ranges: [{ type: ecosystem === 'Go' ? 'SEMVER' : 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }] };
    }),
  };
}

describe.each(DB_KINDS)('the advisory list on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    cookie = (await t.user('admin', { admin: true })).cookie;
  });
  afterAll(() => t.close());

  const importAdvisories = async (records: unknown[]) => {
    const res = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie, 'content-type': 'application/json' }, payload: JSON.stringify(records) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ added: number; updated: number; unchanged: number }>();
  };
  const list = async (query: string) => {
    const res = await t.request({ url: `/api/v1/advisories${query}`, headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return { total: Number(res.headers['x-total-count']), ids: res.json<{ id: string }[]>().map((a) => a.id) };
  };

  it('lists by ecosystem newest first, each advisory once, and follows an advisory that changes', async () => {
    expect(await importAdvisories([
      osv('GHSA-aaaa-aaaa-aaaa', '2024-03-01T00:00:00Z', ['npm/left-pad', 'npm/right-pad'], 'Padding gone wrong'),
      osv('GHSA-bbbb-bbbb-bbbb', '2024-02-01T00:00:00Z', ['npm/requests-js', 'PyPI/requests']),
      osv('PYSEC-2024-0001', '2024-04-01T00:00:00Z', ['PyPI/django']),
      osv('GO-2024-0001', '2024-01-15T00:00:00Z', ['Go/golang.org/x/net']),
      osv('GHSA-eeee-eeee-eeee', '2024-02-01T00:00:00Z', ['npm/express']),
    ])).toMatchObject({ added: 5 });

    // Two packages of one ecosystem: listed and counted once. Same `modified`: by id.
    expect(await list('?ecosystem=npm')).toEqual({ total: 3, ids: ['GHSA-aaaa-aaaa-aaaa', 'GHSA-bbbb-bbbb-bbbb', 'GHSA-eeee-eeee-eeee'] });
    expect(await list('?ecosystem=PyPI')).toEqual({ total: 2, ids: ['PYSEC-2024-0001', 'GHSA-bbbb-bbbb-bbbb'] });
    expect(await list('')).toEqual({ total: 5, ids: ['PYSEC-2024-0001', 'GHSA-aaaa-aaaa-aaaa', 'GHSA-bbbb-bbbb-bbbb', 'GHSA-eeee-eeee-eeee', 'GO-2024-0001'] });
    expect(await list('?ecosystem=npm&per_page=2&page=2')).toEqual({ total: 3, ids: ['GHSA-eeee-eeee-eeee'] });
    expect(await list('?package=right-pad')).toEqual({ total: 1, ids: ['GHSA-aaaa-aaaa-aaaa'] });
    expect(await list('?ecosystem=npm&package=requests')).toEqual({ total: 0, ids: [] });
    expect(await list('?ecosystem=PyPI&package=requests')).toEqual({ total: 1, ids: ['GHSA-bbbb-bbbb-bbbb'] });
    expect(await list('?ecosystem=npm&q=padding')).toEqual({ total: 1, ids: ['GHSA-aaaa-aaaa-aaaa'] });
    expect(await list('?ecosystem=Maven')).toEqual({ total: 0, ids: [] });

    // Modified later, and now about a Go module only: it leaves npm and leads Go.
    expect(await importAdvisories([osv('GHSA-aaaa-aaaa-aaaa', '2024-05-01T00:00:00Z', ['Go/github.com/acme/pad'])])).toMatchObject({ updated: 1 });
    expect(await list('?ecosystem=npm')).toEqual({ total: 2, ids: ['GHSA-bbbb-bbbb-bbbb', 'GHSA-eeee-eeee-eeee'] });
    expect(await list('?ecosystem=Go')).toEqual({ total: 2, ids: ['GHSA-aaaa-aaaa-aaaa', 'GO-2024-0001'] });
    expect((await list('')).ids).toEqual(['GHSA-aaaa-aaaa-aaaa', 'PYSEC-2024-0001', 'GHSA-bbbb-bbbb-bbbb', 'GHSA-eeee-eeee-eeee', 'GO-2024-0001']);

    // An older copy changes nothing.
    expect(await importAdvisories([osv('PYSEC-2024-0001', '2023-12-01T00:00:00Z', ['npm/django'])])).toMatchObject({ unchanged: 1 });
    expect(await list('?ecosystem=PyPI')).toEqual({ total: 2, ids: ['PYSEC-2024-0001', 'GHSA-bbbb-bbbb-bbbb'] });
    expect((await list('?ecosystem=npm')).ids).not.toContain('PYSEC-2024-0001');
  });
});
