/** What the pagination headers (X-Total-Count, X-Page, X-Per-Page, Link) of a list response say. */
export interface PageInfo {
  total: number;
  page: number;
  perPage: number;
  lastPage: number;
}

export function pageInfo(response: Response, fallbackPerPage = 30): PageInfo {
  const total = integer(response.headers.get('x-total-count')) ?? 0;
  const page = integer(response.headers.get('x-page')) ?? 1;
  const perPage = integer(response.headers.get('x-per-page')) ?? fallbackPerPage;
  const lastFromLink = lastPageOf(response.headers.get('link'));
  const lastPage = lastFromLink ?? Math.max(1, Math.ceil(total / Math.max(1, perPage)));
  return { total, page, perPage, lastPage };
}

function integer(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  return Number(value);
}

/** The page number in the RFC 8288 `rel="last"` link, if there is one. */
function lastPageOf(link: string | null): number | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?last"?/.exec(part.trim());
    if (match?.[1]) {
      const page = new URL(match[1], 'http://link.invalid').searchParams.get('page');
      return integer(page);
    }
  }
  return null;
}
