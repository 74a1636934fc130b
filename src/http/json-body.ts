import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { HttpProblem, badRequest } from '../problem.js';

/** JSON endpoints take at most 1 MiB, whatever the app-wide limit (uploads need far more). */
export const JSON_BODY_LIMIT = 1024 * 1024;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

/**
 * Request bodies are JSON in UTF-8 and nothing else. Fastify also parsed text/plain, which turned a
 * wrong content type into a puzzling "body must be object" 400 instead of a 415, and decoded any
 * bytes as UTF-8, so invalid ones were stored as U+FFFD and another charset was read as UTF-8,
 * and ignored Content-Encoding (a gzip body was a puzzling "not valid JSON").
 * Uploads and advisory imports read their bodies themselves, in scopes of their own.
 */
export function registerJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      return done(new HttpProblem(415, `JSON bodies are read as sent, without Content-Encoding (not ${encoding}).`), undefined);
    }
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(new HttpProblem(415, `JSON is read as UTF-8 only, not ${charset}.`), undefined);
    }
    if (!isUtf8(body as Buffer)) return done(badRequest('The body is not valid UTF-8.'), undefined);
    parse(request, (body as Buffer).toString('utf8'), done);
  });
}
