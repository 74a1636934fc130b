import { Type, type TSchema } from 'typebox';
import { paginationHeaders } from './pagination.js';

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is not valid (see errors[]).',
  401: 'No session and no valid API key.',
  403: 'Signed in, but not allowed to do this.',
  404: 'Not found, or not visible to the caller.',
  409: 'Conflicts with what is stored (e.g. a duplicate name).',
  413: 'The body is larger than allowed.',
  415: 'The content type or format is not accepted.',
  429: 'Rate limit exceeded; see Retry-After.',
  503: 'Not ready.',
};

/** The problem responses of a route, as response-schema entries with their media type. */
export function problems(...codes: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const code of codes) {
    out[code] = {
      description: PROBLEM_DESCRIPTIONS[code] ?? 'Error.',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    };
  }
  return out;
}

/** A paginated list response: the array and the pagination headers. */
export function pageResponse<T extends TSchema>(item: T, description: string) {
  return { description, headers: paginationHeaders, content: { 'application/json': { schema: Type.Array(item) } } };
}

/** A 201 response: the created resource, and its URL in Location. */
export function created<T extends TSchema>(item: T, description: string) {
  return {
    description,
    headers: { Location: { type: 'string', description: 'The URL of the new resource.' } },
    content: { 'application/json': { schema: item } },
  };
}

export const NoContent = { description: 'Done; no content.', type: 'null' } as const;
