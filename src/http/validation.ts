import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { badRequest, type FieldError } from '../problem.js';
import { DISPLAY_NAME_FORMAT, isDisplayName, LONE_SURROGATE } from '../names.js';
import { DATE_TIME_FORMAT, isDateTime } from '../date-time.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, strict: false, ...options });
  ajv.addFormat(DISPLAY_NAME_FORMAT, { type: 'string', validate: isDisplayName });
  addFormats(ajv);
  // Replaces ajv-formats' date-time, which passes what no Date or database can hold (a leap second, year 0).
  return ajv.addFormat(DATE_TIME_FORMAT, { type: 'string', validate: isDateTime });
}

/**
 * Query strings and path params are text, so they are coerced to the schema's types; JSON bodies
 * are not: `{"name": 123}` must be a 400, not the string "123".
 */
export function registerValidation(app: FastifyInstance): void {
  const coercing = makeAjv({ coerceTypes: 'array' });
  const strict = makeAjv({ coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : decimalIntegers(coercing.compile(schema), schema as JsonSchema),
  );
  // Text that would not read back as sent is refused up front rather than stored changed or failed
  // deep in a query (textFaults). The HTTP parser refuses a raw NUL in the request line, and the
  // request target check refuses percent-encodings that are not UTF-8, so params and query can
  // only hold a fault as %00.
  app.addHook('preValidation', async (request) => {
    const inUrl = request.raw.url?.includes('%00') ?? false;
    const errors = [
      ...(inUrl ? textFaults(request.params, '/params') : []),
      ...(inUrl ? textFaults(request.query, '/query') : []),
      ...textFaults(request.body, ''),
    ];
    if (errors.length) throw badRequest(TEXT_FAULT, errors);
  });
}

export const TEXT_FAULT = 'The request holds text no field accepts: a NUL character or an unpaired surrogate.';

interface JsonSchema {
  type?: unknown;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
}

const DECIMAL = /^[0-9]+$/;

/**
 * Ajv coerces a query or path string to an integer the way JavaScript's Number() reads it, so
 * `page=0x10` was page 16 and `1e1`, ` 1` and `+1` were numbers too. Integers in a URL are decimal
 * digits only (leading zeros allowed: `02` spells 2 unambiguously); anything else is a 400, checked
 * on the raw strings before Ajv coerces them, for every integer property of every route's query and
 * params at once.
 */
function decimalIntegers(validate: ValidateFunction, schema: JsonSchema): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {}).filter(([, property]) => isInteger(property)).map(([name]) => name);
  if (integers.length === 0) return validate;
  const checked = ((data: unknown, context?: unknown) => {
    const values = (data ?? {}) as Record<string, unknown>;
    const errors = integers.filter((name) => [values[name]].flat().some((value) => typeof value === 'string' && !DECIMAL.test(value)))
      .map((name): ErrorObject => ({
        instancePath: `/${name}`, schemaPath: `#/properties/${name}`, keyword: 'pattern', params: { pattern: DECIMAL.source },
        message: 'must be a whole number in decimal digits',
      }));
    if (errors.length) {
      checked.errors = errors;
      return false;
    }
    const valid = validate(data, context as Parameters<ValidateFunction>[1]);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  // Fastify hands Ajv's own validators the request as the parent, so a coerced root can be replaced.
  Object.assign(checked, { schema: validate.schema, schemaEnv: validate.schemaEnv });
  return checked;
}

function isInteger(schema: JsonSchema): boolean {
  return schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer')) || (schema.anyOf ?? []).some(isInteger);
}

/** No request schema goes near this deep; JSON nested thousands deep is only ever an attack on recursion. */
export const MAX_JSON_DEPTH = 64;

/**
 * Where text stands that could not be stored as sent (plain JSON values only; streams are
 * skipped): a NUL, which PostgreSQL text cannot hold, and an unpaired surrogate, which would be
 * stored as U+FFFD, so that what was acknowledged is not what reads back. Walked with an explicit
 * stack, never recursion, and refused past MAX_JSON_DEPTH: any body the JSON parser accepts must
 * get an answer, not a stack overflow.
 */
export function textFaults(root: unknown, rootPath: string): FieldError[] {
  const found: FieldError[] = [];
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) found.push({ path: path || '/', message: 'must not contain a NUL character' });
      else if (LONE_SURROGATE.test(value)) found.push({ path: path || '/', message: 'must not contain an unpaired surrogate (such as \\ud800)' });
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
