import { conflict, notFound } from '../problem.js';

const UNIQUE_VIOLATION_CODES = new Set([
  '23505', // PostgreSQL unique_violation
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
]);

const FOREIGN_KEY_VIOLATION_CODES = new Set([
  '23503', // PostgreSQL foreign_key_violation
  'SQLITE_CONSTRAINT_FOREIGNKEY',
]);

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return typeof code === 'string' && UNIQUE_VIOLATION_CODES.has(code);
}

export function isForeignKeyViolation(error: unknown): boolean {
  const code = codeOf(error);
  return typeof code === 'string' && FOREIGN_KEY_VIOLATION_CODES.has(code);
}

/**
 * Whether the database refused the data itself, so that the same write will fail every time it is
 * tried: PostgreSQL's data exceptions (class 22: a number out of range, an invalid date), integrity
 * violations (class 23) and program limits (class 54: an index entry over 2,704 bytes); SQLite's
 * NOT NULL, CHECK, too big and mismatch. Not a unique violation, which two writers racing for the
 * same row also cause and a retry gets past; nor a lost connection, a shutdown (57P01), a
 * serialization failure (40001) or a lack of resources (53xxx), which are outages.
 */
export function isDataError(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code !== 'string' || isUniqueViolation(error)) return false;
  return /^(22|23|54)[0-9A-Z]{3}$/.test(code) || SQLITE_DATA_ERRORS.has(code);
}

const SQLITE_DATA_ERRORS = new Set(['SQLITE_CONSTRAINT_NOTNULL', 'SQLITE_CONSTRAINT_CHECK', 'SQLITE_TOOBIG', 'SQLITE_MISMATCH']);

/**
 * Runs a write that a unique index guards and turns a duplicate into 409. Checking first and then
 * writing would let two concurrent requests both pass the check; the index decides instead. With
 * `parent`, a row whose parent was deleted meanwhile (a foreign key violation) is a 404 naming it.
 */
export async function conflictOnDuplicate<T>(write: () => Promise<T>, detail: string, parent?: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(detail);
    if (parent && isForeignKeyViolation(error)) throw notFound(parent);
    throw error;
  }
}
