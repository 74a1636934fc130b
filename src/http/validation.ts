import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { badRequest, type FieldError } from './problem.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, strict: false, ...options });
  return addFormats(ajv);
}

/**
 * Query strings and path params are text, so they are coerced to the schema's types; JSON bodies
 * are not: `{"name": 123}` must be a 400, not the string "123".
 */
export function registerValidation(app: FastifyInstance): void {
  const coercing = makeAjv({ coerceTypes: 'array' });
  const strict = makeAjv({ coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema),
  );
  // PostgreSQL text cannot hold NUL: refuse it up front rather than fail deep in a query.
  app.addHook('preValidation', async (request) => {
    const errors = [
      ...nulPaths(request.params, '/params'),
      ...nulPaths(request.query, '/query'),
      ...nulPaths(request.body, ''),
    ];
    if (errors.length) throw badRequest('The request contains a NUL character, which no field accepts.', errors);
  });
}

/** Where NUL characters stand in a parsed request part (plain JSON values only; streams are skipped). */
function nulPaths(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [{ path: path || '/', message: 'must not contain a NUL character' }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => nulPaths(item, `${path}/${i}`));
  if (isParsedObject(value)) return Object.entries(value).flatMap(([key, item]) => nulPaths(item, `${path}/${key}`));
  return [];
}

/** Parsed JSON, query strings and params; not a body stream (uploads) or a Buffer. */
function isParsedObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  return typeof (value as { pipe?: unknown }).pipe !== 'function';
}
