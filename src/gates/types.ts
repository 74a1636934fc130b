import type { Severity } from '../domain/scan.js';

type PerSeverity<T> = Partial<Record<Severity, T>>;

/** A policy as the rules read it (gates/schema.ts validates the JSON a client sends). */
export interface Policy {
  max_open?: PerSeverity<number>;
  fail_on_new?: Severity | null;
  fail_on_kev?: boolean;
  max_age_days?: PerSeverity<number>;
  /** The SLA's days for a finding in the KEV catalogue (metrics/sla.ts); the gate does not judge it. */
  max_age_kev_days?: number;
  licenses?: {
    deny?: string[];
    allow?: string[] | null;
    unknown?: 'warn' | 'fail';
  };
}

/** A repository's own policy, or `inherit: true` to follow its org's. */
export type RepoPolicy = Policy & { inherit?: boolean };

export interface Violation {
  /** The policy field that was broken, e.g. max_open, fail_on_new, licenses.deny. */
  rule: string;
  level: 'fail' | 'warn';
  message: string;
  count: number;
  examples: string[];
}

export interface Gate {
  status: 'pass' | 'warn' | 'fail';
  violations: Violation[];
}
