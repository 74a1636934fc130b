import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { newId } from '../../src/db/ids.js';
import type { Problem } from '../support/orgs.js';

const ORGS = 1000;
const PER_PAGE = 7;

/** `rel -> URL` from an RFC 8288 Link header. */
function links(header: string | string[] | number | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of String(header ?? '').split(',')) {
    const match = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (match) out[match[2]!] = match[1]!;
  }
  return out;
}

describe.each(DB_KINDS)('pagination on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let inserted: string[];

  beforeAll(async () => {
    t = await createTestApp(kind);
    cookie = (await t.user('pager', { admin: true })).cookie;
    // Ten orgs share each timestamp, inserted out of id order, so the tie-break on id is exercised.
    const base = Date.parse('2024-01-01T00:00:00.000Z');
    const rows = Array.from({ length: ORGS }, (_, i) => {
      const at = new Date(base + Math.floor(i / 10) * 1000).toISOString();
      return { id: newId(), name: `Org ${String(i).padStart(4, '0')}`, name_key: `org ${String(i).padStart(4, '0')}`, description: '', created_at: at, updated_at: at };
    });
    for (let i = 0; i < rows.length; i += 250) {
      await t.db.kysely.insertInto('orgs').values(rows.slice(i, i + 250).reverse()).execute();
    }
    inserted = rows.map((r) => r.id);
  });
  afterAll(() => t.close());

  it(`walks ${ORGS} orgs ${PER_PAGE} at a time: each exactly once, in a stable order, headers agreeing`, async () => {
    const lastPage = Math.ceil(ORGS / PER_PAGE);
    const seen: string[] = [];
    let url: string | undefined = `/api/v1/orgs?per_page=${PER_PAGE}`;
    let page = 0;
    while (url) {
      const res = await t.request({ url, headers: { cookie } });
      page++;
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-total-count']).toBe(String(ORGS));
      expect(res.headers['x-page']).toBe(String(page));
      expect(res.headers['x-per-page']).toBe(String(PER_PAGE));
      const rel = links(res.headers.link);
      expect(rel.first).toBe(`/api/v1/orgs?per_page=${PER_PAGE}&page=1`);
      expect(rel.last).toBe(`/api/v1/orgs?per_page=${PER_PAGE}&page=${lastPage}`);
      if (page > 1) expect(rel.prev).toContain(`page=${page - 1}`);
      else expect(rel.prev).toBeUndefined();
      const items = res.json<{ id: string; created_at: string }[]>();
      expect(items).toHaveLength(page < lastPage ? PER_PAGE : ORGS - PER_PAGE * (lastPage - 1));
      seen.push(...items.map((o) => o.id));
      url = rel.next;
    }
    expect(page).toBe(lastPage);
    expect(new Set(seen).size).toBe(ORGS);
    const sorted = [...inserted].sort((a, b) => (a < b ? -1 : 1));
    expect(new Set(seen)).toEqual(new Set(sorted));
    // The order is (created_at, id): within each shared timestamp, ids ascend.
    for (let i = 0; i < ORGS; i += 10) expect(seen.slice(i, i + 10)).toEqual([...inserted.slice(i, i + 10)].sort());
  });

  it('answers a page past the end with 200 and []', async () => {
    const res = await t.request({ url: `/api/v1/orgs?per_page=${PER_PAGE}&page=${Math.ceil(ORGS / PER_PAGE) + 1}`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
    expect(res.headers['x-total-count']).toBe(String(ORGS));
    expect(links(res.headers.link).next).toBeUndefined();
  });

  it.each([
    ['page=0', '/query/page'],
    ['per_page=0', '/query/per_page'],
    ['per_page=abc', '/query/per_page'],
    ['page=-1', '/query/page'],
    ['page=1.5', '/query/page'],
    // Numbers JavaScript reads but a person did not write as a page number: never page 16, 10 or 1.
    ['page=0x10', '/query/page'],
    ['page=1e1', '/query/page'],
    ['page=%201', '/query/page'],
    ['page=1%20', '/query/page'],
    ['page=%2B1', '/query/page'],
    ['page=1.0', '/query/page'],
    ['page=', '/query/page'],
    ['per_page=0b11', '/query/per_page'],
    ['per_page=0o7', '/query/per_page'],
    ['per_page=%EF%BC%91', '/query/per_page'],
    ['page=1&page=0x10', '/query/page'],
  ])('answers %s with 400 naming the parameter', async (query, path) => {
    const res = await t.request({ url: `/api/v1/orgs?${query}`, headers: { cookie } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json<Problem>().errors?.map((e) => e.path)).toContain(path);
  });

  it('holds every integer query parameter to decimal digits, not only the page ones', async () => {
    const res = await t.request({ url: '/api/v1/uploads/no-such-upload?wait=0x3', headers: { cookie } });
    expect(res.statusCode).toBe(400);
    expect(res.json<Problem>().errors).toEqual([{ path: '/query/wait', message: 'must be a whole number in decimal digits' }]);
    expect((await t.request({ url: '/api/v1/uploads/no-such-upload?wait=3', headers: { cookie } })).statusCode).toBe(404);
  });

  it('reads plain decimal digits, leading zeros included, as the number they spell', async () => {
    const res = await t.request({ url: '/api/v1/orgs?page=02&per_page=05', headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    expect([res.headers['x-page'], res.headers['x-per-page']]).toEqual(['2', '5']);
  });

  it('clamps per_page above 100 to 100 and defaults to 30', async () => {
    const clamped = await t.request({ url: '/api/v1/orgs?per_page=500', headers: { cookie } });
    expect(clamped.statusCode).toBe(200);
    expect(clamped.headers['x-per-page']).toBe('100');
    expect(clamped.json()).toHaveLength(100);
    expect(links(clamped.headers.link).last).toContain('per_page=100&page=10');
    const defaulted = await t.request({ url: '/api/v1/orgs', headers: { cookie } });
    expect(defaulted.headers['x-per-page']).toBe('30');
    expect(defaulted.json()).toHaveLength(30);
  });

  it('keeps q in the Link header and counts only matches', async () => {
    const res = await t.request({ url: '/api/v1/orgs?q=org%2009&per_page=4', headers: { cookie } });
    expect(res.headers['x-total-count']).toBe('100'); // Org 0900 … Org 0999
    expect(links(res.headers.link).next).toBe('/api/v1/orgs?q=org+09&per_page=4&page=2');
  });
});
