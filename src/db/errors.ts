import { conflict } from '../http/problem.js';

const UNIQUE_VIOLATION_CODES = new Set([
  '23505', // PostgreSQL unique_violation
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
]);

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNIQUE_VIOLATION_CODES.has(code);
}

/**
 * Runs a write that a unique index guards and turns a duplicate into 409. Checking first and then
 * writing would let two concurrent requests both pass the check; the index decides instead.
 */
export async function conflictOnDuplicate<T>(write: () => Promise<T>, detail: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(detail);
    throw error;
  }
}
