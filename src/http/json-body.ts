import type { FastifyInstance } from 'fastify';

/** JSON endpoints take at most 1 MiB, whatever the app-wide limit (uploads need far more). */
export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * For a plugin whose routes take JSON only: Fastify also parses text/plain by default, which would
 * turn a wrong content type into a puzzling "body must be object" 400 instead of a 415.
 * Content-type parsers are encapsulated, so this affects the calling plugin alone.
 */
export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
}
