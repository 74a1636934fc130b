import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Page, Paged } from '../db/page.js';

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;
/**
 * Bounds that keep every offset a small exact integer on both databases (SQLite answered 500 to an
 * offset of 1e300); past them a value is a 400, not clamped, because it is a mistake or a probe.
 */
export const MAX_PAGE = 10_000_000;
const MAX_PER_PAGE_ACCEPTED = 10_000;

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `Page number, from 1 (at most ${MAX_PAGE}).` })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE_ACCEPTED, default: DEFAULT_PER_PAGE, description: `Items per page (default ${DEFAULT_PER_PAGE}; larger than ${MAX_PER_PAGE} is clamped to ${MAX_PER_PAGE}, larger than ${MAX_PER_PAGE_ACCEPTED} is refused).` }),
  ),
});
export type PageQuery = Static<typeof PageQuery>;

function pageFromQuery(query: PageQuery): Page {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * A list route's answer: reads the page the query asks for with `load`, presents each row, and
 * writes X-Total-Count, X-Page, X-Per-Page and an RFC 8288 Link header (first, prev, next, last).
 */
export async function replyPage<Row, Json>(
  request: FastifyRequest,
  reply: FastifyReply,
  load: (page: Page) => Promise<Paged<Row>>,
  present: (row: Row) => Json,
): Promise<Json[]> {
  const page = pageFromQuery(request.query as PageQuery);
  const { total, items } = await load(page);
  writePageHeaders(request, reply, page, total);
  return items.map((row) => present(row));
}

function writePageHeaders(request: FastifyRequest, reply: FastifyReply, page: Page, total: number): void {
  const last = Math.max(1, Math.ceil(total / page.perPage));
  const link = (n: number, rel: string) => `<${pageUrl(request, n, page.perPage)}>; rel="${rel}"`;
  const links = [link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, last), 'prev'));
  if (page.page < last) links.push(link(page.page + 1, 'next'));
  links.push(link(last, 'last'));
  reply
    .header('x-total-count', String(total))
    .header('x-page', String(page.page))
    .header('x-per-page', String(page.perPage))
    .header('link', links.join(', '));
}

function pageUrl(request: FastifyRequest, page: number, perPage: number): string {
  const url = new URL(request.url, 'http://placeholder');
  url.searchParams.set('page', String(page));
  url.searchParams.set('per_page', String(perPage));
  return `${url.pathname}${url.search}`;
}

// Each value is the header's schema: @fastify/swagger wraps it in `schema` and lifts `description` out.
export const paginationHeaders = {
  'X-Total-Count': { type: 'integer', description: 'Total number of items.' },
  'X-Page': { type: 'integer', description: 'Current page.' },
  'X-Per-Page': { type: 'integer', description: 'Items per page.' },
  Link: { type: 'string', description: 'RFC 8288 links to the first, prev, next and last pages.' },
};
