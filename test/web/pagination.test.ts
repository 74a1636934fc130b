/** How the web UI reads the pagination headers of a list response. */
import { describe, expect, it } from 'vitest';
import { pageInfo } from '../../web/src/api/pagination.js';

const response = (headers: Record<string, string>) => new Response('[]', { headers });

describe('pageInfo', () => {
  it('reads the totals and takes the last page from the Link header', () => {
    const info = pageInfo(response({
      'x-total-count': '61', 'x-page': '2', 'x-per-page': '25',
      link: '</api/v1/orgs/o/repos?page=1&per_page=25>; rel="first", </api/v1/orgs/o/repos?page=1&per_page=25>; rel="prev", </api/v1/orgs/o/repos?page=3&per_page=25>; rel="next", </api/v1/orgs/o/repos?page=3&per_page=25>; rel="last"',
    }));
    expect(info).toEqual({ total: 61, page: 2, perPage: 25, lastPage: 3 });
  });

  it('computes the last page when there is no Link header, and never less than 1', () => {
    expect(pageInfo(response({ 'x-total-count': '101', 'x-page': '1', 'x-per-page': '50' })).lastPage).toBe(3);
    expect(pageInfo(response({ 'x-total-count': '0' })).lastPage).toBe(1);
  });

  it('falls back to defaults on missing or malformed headers', () => {
    expect(pageInfo(response({ 'x-total-count': 'many', 'x-page': '-1' }), 30)).toEqual({ total: 0, page: 1, perPage: 30, lastPage: 1 });
  });
});
