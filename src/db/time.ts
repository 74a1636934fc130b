/** Every timestamp we store: ISO 8601 in UTC with milliseconds, so text comparison is time order. */
export function now(): string {
  return new Date().toISOString();
}

export function inFuture(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** PostgreSQL's text for a timestamptz in a session at UTC, e.g. `2026-11-27 22:50:11.439381+00`. */
const PG_AT_UTC = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as PostgreSQL sends it, in our form. Rearranged as text when the session is at UTC:
 * Date's parse of that form took a tenth of the CPU of reading an org's repository list (four
 * timestamps a row). Any other form (another time zone, a year BC) goes through Date, which keeps
 * milliseconds the same way, truncating.
 */
export function fromPgTimestamptz(value: string): string {
  const match = PG_AT_UTC.exec(value);
  if (!match) return new Date(value).toISOString();
  const fraction = match[3] ?? '';
  return `${match[1]}T${match[2]}.${fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0')}Z`;
}
