import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'Page number, from 1.' })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, default: DEFAULT_PER_PAGE, description: `Items per page (default ${DEFAULT_PER_PAGE}; larger than ${MAX_PER_PAGE} is clamped to ${MAX_PER_PAGE}).` }),
  ),
});
export type PageQuery = Static<typeof PageQuery>;

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export function pageOf(query: PageQuery): Page {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Writes X-Total-Count, X-Page, X-Per-Page and an RFC 8288 Link header (first, prev, next, last). */
export function sendPage<T>(request: FastifyRequest, reply: FastifyReply, page: Page, total: number, items: T[]): T[] {
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
  return items;
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
