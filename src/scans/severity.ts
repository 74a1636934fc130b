import type { Severity } from './parsers/types.js';

/** Higher is worse; the findings index sorts on it. */
export const SEVERITY_RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };

export type SeverityCounts = Record<Severity, number>;

export function zeroCounts(): SeverityCounts {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}
