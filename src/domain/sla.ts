import type { Severity } from './scan.js';

/** What of a policy (gates/types.ts) is the SLA: its max_age_days and max_age_kev_days. */
interface Policy {
  max_age_days?: Partial<Record<Severity, number>>;
  max_age_kev_days?: number;
}

const DAY_MS = 86_400_000;

/** Days to fix per severity and for KEV-listed findings; null: no SLA for it. Pure. */
export interface Sla {
  critical: number | null;
  high: number | null;
  medium: number | null;
  low: number | null;
  kev_days: number | null;
}

export type SlaState = 'on_track' | 'due_soon' | 'breached';

export const SLA_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

/** The SLA is the policy's max_age_days (and max_age_kev_days) read from the other side: one setting, two views. */
export function slaOf(policy: Policy): Sla {
  const days = policy.max_age_days ?? {};
  return {
    critical: days.critical ?? null, high: days.high ?? null, medium: days.medium ?? null, low: days.low ?? null,
    kev_days: policy.max_age_kev_days ?? null,
  };
}

/** The policy with the SLA written into it; everything else it says is kept. */
export function withSla(policy: Policy, sla: Partial<Sla>): Policy {
  const { max_age_days: _days, max_age_kev_days: _kev, ...rest } = policy;
  const days: Partial<Record<Severity, number>> = {};
  for (const severity of SLA_SEVERITIES) {
    const value = sla[severity];
    if (value !== null && value !== undefined) days[severity] = value;
  }
  return {
    ...rest,
    ...(Object.keys(days).length ? { max_age_days: days } : {}),
    ...(sla.kev_days !== null && sla.kev_days !== undefined ? { max_age_kev_days: sla.kev_days } : {}),
  };
}

/** When a finding's window starts and ends (ms since the epoch). */
export interface Window {
  start: number;
  due: number;
}

/** A finding's windows: its severity's from first seen, and the KEV one from max(first seen, kev_added_at); either may be absent. */
export function slaWindows(sla: Sla, severity: string, firstSeen: string, kevAddedAt: string | null): Window[] {
  const seen = Date.parse(firstSeen);
  const out: Window[] = [];
  const days = (SLA_SEVERITIES as readonly string[]).includes(severity) ? sla[severity as (typeof SLA_SEVERITIES)[number]] : null;
  if (days !== null) out.push({ start: seen, due: seen + days * DAY_MS });
  if (kevAddedAt !== null && sla.kev_days !== null) {
    const start = Math.max(seen, Date.parse(kevAddedAt));
    out.push({ start, due: start + sla.kev_days * DAY_MS });
  }
  return out;
}

/** The window that ends first: due_at = min(first_seen + days[severity], max(first_seen, kev_added_at) + kev_days). */
export function slaWindow(sla: Sla, severity: string, firstSeen: string, kevAddedAt: string | null): Window | null {
  const windows = slaWindows(sla, severity, firstSeen, kevAddedAt);
  return windows.reduce<Window | null>((first, w) => (first === null || w.due < first.due ? w : first), null);
}

/**
 * Breached once past due_at (the earliest window's end); due soon while within the last fifth of
 * either window. Reading "due soon" per window keeps it a plain comparison of first seen (or the KEV
 * import) with a time, so the findings list filters by it in SQL (results/store.ts).
 */
export function slaState(windows: readonly Window[], at: number): SlaState {
  if (windows.some((w) => at > w.due)) return 'breached';
  return windows.some((w) => at >= w.due - (w.due - w.start) / 5) ? 'due_soon' : 'on_track';
}

/** The due date and state a finding shows; both null when it is dismissed or no SLA applies. */
export function findingSla(sla: Sla, finding: { severity: string; created_at: string; state: string; kev_added_at: string | null }, at: number): { due_at: string | null; sla: SlaState | null } {
  if (finding.state === 'dismissed') return { due_at: null, sla: null };
  const windows = slaWindows(sla, finding.severity, finding.created_at, finding.kev_added_at);
  if (windows.length === 0) return { due_at: null, sla: null };
  const due = Math.min(...windows.map((w) => w.due));
  return { due_at: new Date(due).toISOString(), sla: finding.state === 'fixed' ? null : slaState(windows, at) };
}
