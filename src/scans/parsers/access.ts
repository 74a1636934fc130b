import type { NormalisedScan } from '../../domain/scan.js';
import { ParseError } from './types.js';

/**
 * Typed reads from parsed JSON (or XML turned into plain objects). Scanner output is untrusted:
 * every field may be missing or of the wrong type, so parsers read through these instead of
 * casting, and a wrong type reads as "absent" rather than throwing a TypeError later. Not so the
 * lists of what was found (`collection`): read as absent, a broken one would fix every finding.
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

/**
 * A list of objects that holds what a report found (results, matches, packages). Absent is an empty
 * list, as scanners omit it when they found nothing; present as anything but an array of objects
 * is a broken report, refused here: read as empty, it would mark every finding of the last upload fixed.
 */
export function collection(value: unknown, path: string): JsonRecord[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ParseError(`${path} must be an array, not ${describeType(value)}`);
  value.forEach((item: unknown, index) => {
    if (!isRecord(item)) throw new ParseError(`${path}[${index}] must be an object, not ${describeType(item)}`);
  });
  return value as JsonRecord[];
}

/** The same for a map of objects by name (npm audit's `vulnerabilities`). */
export function collectionByName(value: unknown, path: string): [string, JsonRecord][] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) throw new ParseError(`${path} must be an object, not ${describeType(value)}`);
  return Object.entries(value).map(([name, item]) => {
    if (!isRecord(item)) throw new ParseError(`${path}.${name} must be an object, not ${describeType(item)}`);
    return [name, item];
  });
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
/** A 0–10 score from a number or numeric string; anything else (or out of range) is absent. */
export function score(value: unknown): number | undefined {
  const n = number(value);
  return n !== undefined && n >= 0 && n <= 10 ? n : undefined;
}

export function number(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** The largest line stored: the columns are 32-bit integers on PostgreSQL. */
export const LAST_LINE = 2 ** 31 - 1;

/** A 1-based line number; 0, negatives, fractions and numbers past any file's length are not lines. */
export function line(value: unknown): number | null {
  const n = number(value);
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= LAST_LINE ? n : null;
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

/**
 * The longest identifier kept (UTF-8 bytes). Tool names, rule ids, component names, purls and VEX
 * statements are indexed, and PostgreSQL refuses an index entry over 2,704 bytes (three of these
 * make one VEX statement's key); text that long is no identifier anyone wrote.
 */
const MAX_IDENTIFIER_BYTES = 800;

/** Refuses the document when an identifier is too long to index, naming the field. */
function boundedIdentifier(value: string, field: string): void {
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_IDENTIFIER_BYTES) throw new ParseError(`${field} is ${bytes} bytes long; an identifier may be at most ${MAX_IDENTIFIER_BYTES} bytes`);
}

/** Every identifier of a parsed scan through boundedIdentifier: one check for every format. */
export function boundedIdentifiers(scan: NormalisedScan): NormalisedScan {
  for (const { tool, findings, components } of scan.analyses) {
    boundedIdentifier(tool.name, 'A tool name');
    for (const found of findings) {
      boundedIdentifier(found.ruleId, 'A rule id');
      for (const [value, field] of [[found.packageName, 'A package name'], [found.packageVersion, 'A package version'], [found.purl, 'A purl']] as const) {
        if (value !== null) boundedIdentifier(value, field);
      }
    }
    for (const component of components) {
      boundedIdentifier(component.name, 'A component name');
      if (component.version !== null) boundedIdentifier(component.version, 'A component version');
      if (component.purl !== null) boundedIdentifier(component.purl, 'A component purl');
    }
  }
  for (const statement of scan.statements ?? []) {
    boundedIdentifier(statement.vulnerability, 'A VEX statement\'s vulnerability');
    boundedIdentifier('purl' in statement.product ? statement.product.purl : statement.product.ref, 'A VEX statement\'s product');
  }
  return scan;
}
