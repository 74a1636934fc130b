import { Type, type Static, type TSchema } from 'typebox';

/** Building blocks the resources' schema.ts files share. */

const PLAIN_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * The schema or null. A plain value (no const or enum, which null would not meet) says so as
 * `type: [..., "null"]` (JSON Schema 2020-12, OpenAPI 3.1) rather than anyOf: the response
 * serialiser (fast-json-stringify) picks an anyOf branch by running the validator on the value,
 * a date-time's format check included, and that cost ten times the field's serialising (a few
 * percent of a status read, which has several nullable times).
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const plain = schema as { type?: unknown; const?: unknown; enum?: unknown };
  if (typeof plain.type === 'string' && PLAIN_TYPES.has(plain.type) && plain.const === undefined && plain.enum === undefined) {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [plain.type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
};
export const Time = Type.String({ format: 'date-time' });
/** Whatever people create and edit says when it was made and when it last changed. */
export const Timestamps = { created_at: Time, updated_at: Time };
/** Another resource named where it is mentioned: enough to show it and link to it. */
export const NamedRef = Type.Object({ id: Type.String(), name: Type.String() });
export const IdParams = Type.Object({ id: Type.String() });
export const OrgIdParams = Type.Object({ org_id: Type.String() });
