import type { Severity } from './parsers/types.js';

export type SeverityCounts = Record<Severity, number>;

export function zeroCounts(): SeverityCounts {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}
