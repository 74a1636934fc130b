import type { NormalisedScan } from '../domain/scan.js';

/**
 * PostgreSQL text cannot hold NUL (SQLite can), and some tools do emit it. A NUL can only come from
 * a JSON "\u0000" escape or a raw NUL byte (XML forbids it), so the parsed result is walked only
 * when the document has one of those: the common case costs one byte search.
 */
export function stripNul(content: Buffer, scan: NormalisedScan): NormalisedScan {
  if (content.indexOf('\\u0000') === -1 && content.indexOf(0) === -1) return scan;
  return clean(scan);
}

function clean<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('\u0000', '') as T;
  if (Array.isArray(value)) return value.map(clean) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, clean(v)])) as T;
  }
  return value;
}
