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
