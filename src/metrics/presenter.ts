import { stringify } from 'csv-stringify/sync';
import type { MetricsPoint, Summary } from './service.js';

export function presentSummary(summary: Summary) {
  return {
    ...summary,
    oldest_breached: summary.oldest_breached.map((f) => ({
      id: f.id, repository_id: f.repository_id, repository_name: f.repository_name, rule_id: f.rule_id, message: f.message, severity: f.severity,
      first_seen_at: f.created_at, due_at: f.due_at, file_path: f.file_path, package_name: f.package_name,
    })),
  };
}

/** One line per point (RFC 4180). */
export function seriesCsv(points: readonly MetricsPoint[]): string {
  return stringify(points.map((p) => ({
    date: p.date, open_critical: p.open.critical, open_high: p.open.high, open_medium: p.open.medium, open_low: p.open.low, open_info: p.open.info,
    new: p.new, fixed: p.fixed, dismissed: p.dismissed, reopened: p.reopened, breached: p.breached, kev_open: p.kev_open, vulnerabilities: p.vulnerabilities,
  })), { header: true, columns: ['date', 'open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'new', 'fixed', 'dismissed', 'reopened', 'breached', 'kev_open', 'vulnerabilities'] });
}

/** MTTR per severity, with the SLA compliance and breached count on every line (one flat table). */
export function summaryCsv(summary: Summary): string {
  return stringify(Object.entries(summary.mttr).map(([severity, m]) => ({
    severity, median_days: m.median_days, p90_days: m.p90_days, fixed: m.fixed,
    fixed_within_sla: summary.sla_compliance.fixed_within_sla, fixed_under_sla: summary.sla_compliance.fixed, sla_ratio: summary.sla_compliance.ratio,
    breached_now: summary.breached_now,
  })), { header: true, columns: ['severity', 'median_days', 'p90_days', 'fixed', 'fixed_within_sla', 'fixed_under_sla', 'sla_ratio', 'breached_now'], escape_formulas: true });
}
