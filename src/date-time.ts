/**
 * One rule for every date-time a request gives (a dismissal's `until`, a suppression's or a key's
 * `expires_at`): RFC 3339 with a time zone, a real calendar date, and an instant between the years
 * 1 and 9999 in UTC. The rest of RFC 3339 is not an instant we can keep: a leap second
 * (`23:59:60`), which JavaScript's Date cannot hold, is refused rather than read as the next second;
 * year 0000, or a 9999-12-31 whose offset puts it in year 10000 in UTC, PostgreSQL refuses, and as
 * text the ISO form of year 10000 (`+010000-…`) would no longer sort in time order.
 */
export const DATE_TIME_FORMAT = 'date-time';
export const DATE_TIME_RULE = 'must be an RFC 3339 date-time with a time zone (such as 2030-06-30T12:00:00Z), in the years 1 to 9999 in UTC, without a leap second';

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const LAST_YEAR = 9999;

/** The instant as we store it (ISO 8601 in UTC with milliseconds), or null when the rule refuses it. */
export function readDateTime(text: string): string | null {
  const match = RFC_3339.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, Number((match[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const offset = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const utc = new Date(at.getTime() - offset * 60_000);
  return utc.getUTCFullYear() >= 1 && utc.getUTCFullYear() <= LAST_YEAR ? utc.toISOString() : null;
}

export function isDateTime(text: string): boolean {
  return readDateTime(text) !== null;
}

/** A date-time the request schema has already checked, as we store it. */
export function storedDateTime(text: string): string {
  const instant = readDateTime(text);
  if (instant === null) throw new RangeError(`"${text}" is not a date-time the schema accepts`);
  return instant;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
