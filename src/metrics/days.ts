const DAY_MS = 86_400_000;

/** UTC calendar days as YYYY-MM-DD. Pure. */
export function dayOf(at: string | number | Date): string {
  return new Date(at).toISOString().slice(0, 10);
}

export function startOf(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

export function addDays(day: string, n: number): string {
  return dayOf(startOf(day) + n * DAY_MS);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((startOf(to) - startOf(from)) / DAY_MS);
}

export function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(startOf(text)) && dayOf(startOf(text)) === text;
}

export type Interval = 'day' | 'week' | 'month';

/** The first day of the bucket a day falls in: itself, its ISO week's Monday, its month's first. */
export function bucketOf(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 8)}01`;
  const weekday = (new Date(startOf(day)).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}
