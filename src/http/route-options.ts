import type { TSchema } from 'typebox';
import { JSON_BODY_LIMIT } from './json-body.js';
import { PageQuery } from './pagination.js';
import { created, NoContent, pageResponse, problems } from './responses.js';

/**
 * The options of the five kinds of route every resource has, so that a route states only what is
 * its own: documentation, params, body, what it answers, and the problems beyond the usual ones.
 */
interface Described {
  tags: string[];
  summary: string;
  params?: TSchema;
  querystring?: TSchema;
}

/** A paginated list (?page, ?per_page unless `querystring` says more): 400 for a bad query, 401. */
export function listRoute<const S extends Described>(schema: S, item: TSchema, description: string, ...codes: number[]) {
  return { schema: { querystring: PageQuery, ...schema, response: { 200: pageResponse(item, description), ...problems(400, 401, ...codes) } } };
}

/** One resource: 401, and 404 when it does not exist or is not the caller's to see. */
export function readRoute<const S extends Described>(schema: S, item: TSchema, ...codes: number[]) {
  return { schema: { ...schema, response: { 200: item, ...problems(401, 404, ...codes) } } };
}

/** A JSON body that creates a resource: 201 with its Location. */
export function createRoute<const S extends Described & { body: TSchema }>(schema: S, item: TSchema, ...codes: number[]) {
  return { bodyLimit: JSON_BODY_LIMIT, schema: { ...schema, response: { 201: created(item, 'Created.'), ...problems(400, 401, 403, 409, 413, 415, ...codes) } } };
}

/** A JSON body that changes a resource; fields left out keep their value. */
export function updateRoute<const S extends Described & { body: TSchema }>(schema: S, item: TSchema) {
  return { bodyLimit: JSON_BODY_LIMIT, schema: { ...schema, response: { 200: item, ...problems(400, 401, 403, 404, 409, 413, 415) } } };
}

export function deleteRoute<const S extends Described>(schema: S, ...codes: number[]) {
  return { schema: { ...schema, response: { 204: NoContent, ...problems(401, 403, 404, ...codes) } } };
}
