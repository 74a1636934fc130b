import { ParseError } from './types.js';

/**
 * Typed reads from parsed JSON (or XML turned into plain objects). Scanner output is untrusted:
 * every field may be missing or of the wrong type, so parsers read through these instead of
 * casting, and a wrong type reads as "absent" rather than throwing a TypeError later.
 */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

/** An array as is, a lone value as a one-element array (XML repeats), nothing as []. */
export function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

export function records(value: unknown): JsonRecord[] {
  return list(value).filter(isRecord);
}

/** A string with something other than whitespace in it. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** text(), or a ParseError naming the missing field. */
export function requiredText(value: unknown, path: string): string {
  const written = text(value);
  if (written === undefined) throw new ParseError(`${path} is missing`);
  return written;
}

/** A finite number, also when written as a numeric string ("7.5"). */
export function number(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** A 1-based line number; 0, negatives and fractions are not lines. */
export function line(value: unknown): number | null {
  const n = number(value);
  return n !== undefined && Number.isInteger(n) && n >= 1 ? n : null;
}

const COMMIT_SHA = /^[0-9a-f]{7,64}$/i;

/** A commit id (7 to 64 hex digits, lowercased); anything else, such as Gitleaks' "" outside git, is none. */
export function commitSha(value: unknown): string | null {
  return typeof value === 'string' && COMMIT_SHA.test(value) ? value.toLowerCase() : null;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
