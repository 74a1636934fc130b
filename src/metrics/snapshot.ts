import type { Severity } from '../domain/scan.js';
import { openVulnerabilityCounts } from '../results/vulnerabilities.js';
import { addDays, startOf } from './days.js';
import { slaWindow, type Sla } from '../domain/sla.js';

/** A finding of a default branch as its row keeps its history. */
export interface FindingHistory {
  fingerprint: string;
  severity: string;
  rule_id: string;
  aliases: string | null;
  purl: string | null;
  state: string;
  created_at: string;
  fixed_at: string | null;
  reopened_at: string | null;
  kev_added_at: string | null;
}

/** A triage event of a fingerprint (finding_events). */
export interface TriageHistory {
  fingerprint: string;
  event: string;
  created_at: string;
}

/**
 * When Scanyard imported the KEV entry of one of a finding's names (its rule id and the aliases stored
 * with it), the earliest; null when none is listed. Matched in memory against the catalogue (a few
 * thousand CVEs): a scanner's GHSA id whose CVE only the advisory database knows is not matched here,
 * while the findings list (advisories/priorities-store.ts inKev) follows the database's aliases too.
 */
export function kevAddedAtOf(finding: { rule_id: string; aliases: string | null }, imports: ReadonlyMap<string, string>): string | null {
  // The daily snapshot asks this of every open finding: without a catalogue, parse no aliases.
  if (imports.size === 0) return null;
  let first: string | null = null;
  for (const name of [finding.rule_id, ...(finding.aliases ? (JSON.parse(finding.aliases) as string[]) : [])]) {
    const at = imports.get(name.toUpperCase());
    if (at !== undefined && (first === null || at < first)) first = at;
  }
  return first;
}

export interface DayPoint {
  day: string;
  open: Record<Severity, number>;
  opened: number;
  fixed: number;
  dismissed: number;
  reopened: number;
  breached: number;
  kev_open: number;
  vulnerabilities: number;
}

const DISMISSING = new Set(['dismissed', 'dismissed_by_rule', 'dismissed_by_vex']);
const REOPENING = new Set(['reopened_by_hand', 'dismissal_expired', 'rule_deleted', 'reopened_by_vex']);

/**
 * Each day's point of one repository's default branch, from the history its findings keep. Day D is
 * the state at the end of D (UTC) and D's events. Pure, so live snapshots and the backfill are one
 * computation: a day written live and the same day written later from history agree, except where a
 * later fix-and-reopen overwrote a finding's earlier fix (rows keep the last fix and reopening only);
 * days already written are never rewritten, so the live record stands.
 * - open: first seen before the end of D, not fixed by then (its last fix), not dismissed then (the
 *   triage events of its fingerprint say when).
 * - new, fixed, reopened: first seen, last fixed, last reopened by an upload during D; reopened also
 *   counts triage reopenings; dismissed counts dismissals during D.
 * - breached: open at the end of D and past its due date as the SLA now says.
 */
const NO_EVENTS: readonly { at: number; dismisses: boolean }[] = [];

export function dayPoints(findings: readonly FindingHistory[], events: readonly TriageHistory[], sla: Sla, days: readonly string[]): DayPoint[] {
  const byFingerprint = new Map<string, TriageHistory[]>();
  for (const event of [...events].sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    if (!DISMISSING.has(event.event) && !REOPENING.has(event.event)) continue;
    const list = byFingerprint.get(event.fingerprint) ?? [];
    list.push(event);
    byFingerprint.set(event.fingerprint, list);
  }
  const prepared = findings.map((f) => ({
    f, created: Date.parse(f.created_at),
    fixed: f.state === 'fixed' && f.fixed_at ? Date.parse(f.fixed_at) : Infinity,
    reopened: f.reopened_at ? Date.parse(f.reopened_at) : null,
    due: slaWindow(sla, f.severity, f.created_at, f.kev_added_at)?.due ?? Infinity,
    events: byFingerprint.get(f.fingerprint)?.map((e) => ({ at: Date.parse(e.created_at), dismisses: DISMISSING.has(e.event) })) ?? NO_EVENTS,
  }));
  return days.map((day) => {
    const start = startOf(day);
    const end = startOf(addDays(day, 1));
    const within = (t: number | null) => t !== null && t >= start && t < end;
    const point: DayPoint = {
      day, open: { critical: 0, high: 0, medium: 0, low: 0, info: 0 }, opened: 0, fixed: 0, dismissed: 0, reopened: 0, breached: 0, kev_open: 0, vulnerabilities: 0,
    };
    const openVulns = [];
    for (const p of prepared) {
      if (p.created >= end) continue;
      if (within(p.created)) point.opened++;
      if (within(p.fixed)) point.fixed++;
      if (within(p.reopened)) point.reopened++;
      let dismissed = false;
      for (const event of p.events) {
        if (event.at >= end) break;
        dismissed = event.dismisses;
        if (event.at >= start && event.at >= p.created) {
          if (event.dismisses) point.dismissed++;
          else point.reopened++;
        }
      }
      if (p.fixed < end || dismissed) continue;
      const severity = (p.f.severity in point.open ? p.f.severity : 'info') as Severity;
      point.open[severity]++;
      if (p.due < end) point.breached++;
      if (p.f.kev_added_at !== null) point.kev_open++;
      if (p.f.purl) openVulns.push({ ...p.f, id: '', purl: p.f.purl, tool: '' });
    }
    const counts = openVulns.length ? openVulnerabilityCounts(openVulns.filter((v) => v.aliases !== null || v.rule_id !== ''), []) : null;
    point.vulnerabilities = counts ? Object.values(counts).reduce((a, b) => a + b, 0) : 0;
    return point;
  });
}

/**
 * Items in order, in batches of at most `limit.repositories` items and about `limit.findings`
 * findings: a batch closes before the item that would take it past either, so an item with more
 * findings than that goes alone. Pure.
 */
export function* batches<T extends { findings: number }>(items: readonly T[], limit: { repositories: number; findings: number }): Generator<T[]> {
  let batch: T[] = [];
  let findings = 0;
  for (const item of items) {
    if (batch.length > 0 && (batch.length === limit.repositories || findings + item.findings > limit.findings)) {
      yield batch;
      batch = [];
      findings = 0;
    }
    batch.push(item);
    findings += item.findings;
  }
  if (batch.length > 0) yield batch;
}
