import type { Severity } from './scan.js';

export type SeverityCounts = Record<Severity, number>;

export function zeroCounts(): SeverityCounts {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}

/** What one upload changed, as ingest counts it (and as its events and metrics report it). */
export interface ImportCounts {
  new: number;
  fixed: number;
  reopened: number;
  unchanged: number;
  findings: number;
  components: number;
}

/** The findings an upload opened, reopened and fixed, per severity: what its gate judges and CI prints. */
export interface SeverityChanges {
  new: SeverityCounts;
  reopened: SeverityCounts;
  fixed: SeverityCounts;
}

export function noChanges(): SeverityChanges {
  return { new: zeroCounts(), reopened: zeroCounts(), fixed: zeroCounts() };
}
