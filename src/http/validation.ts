import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { badRequest, type FieldError } from '../problem.js';
import { DISPLAY_NAME_FORMAT, isDisplayName } from '../names.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, strict: false, ...options });
  ajv.addFormat(DISPLAY_NAME_FORMAT, { type: 'string', validate: isDisplayName });
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

/** No request schema goes near this deep; JSON nested thousands deep is only ever an attack on recursion. */
export const MAX_JSON_DEPTH = 64;

/**
 * Where NUL characters stand in a parsed request part (plain JSON values only; streams are
 * skipped). Walked with an explicit stack, never recursion, and refused past MAX_JSON_DEPTH: any
 * body the JSON parser accepts must get an answer, not a stack overflow.
 */
function nulPaths(root: unknown, rootPath: string): FieldError[] {
  const found: FieldError[] = [];
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) found.push({ path: path || '/', message: 'must not contain a NUL character' });
      continue;
    }
    const children = Array.isArray(value) ? value.entries() : isParsedObject(value) ? Object.entries(value) : null;
    if (children === null) continue;
    if (depth >= MAX_JSON_DEPTH) throw badRequest(`The request is nested more than ${MAX_JSON_DEPTH} levels deep.`, [{ path: path || '/', message: 'is nested too deeply' }]);
    // Pushed last to first, so they are visited in document order.
    for (const [key, item] of [...children].reverse()) pending.push({ value: item, path: `${path}/${key}`, depth: depth + 1 });
  }
  return found;
}

/** Parsed JSON, query strings and params; not a body stream (uploads) or a Buffer. */
function isParsedObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  return typeof (value as { pipe?: unknown }).pipe !== 'function';
}
