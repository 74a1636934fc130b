import { Type } from 'typebox';

const Days = Type.Union([Type.Integer({ minimum: 1, maximum: 36_500 }), Type.Null()]);

export const SlaSchema = Type.Object({
  critical: Days, high: Days, medium: Days, low: Days,
  kev_days: Type.Union([Type.Integer({ minimum: 1, maximum: 36_500 }), Type.Null()], { description: 'Days to fix a finding the KEV catalogue lists, from when it was first seen or Scanyard imported the entry, whichever is later.' }),
}, { $id: 'Sla', description: "Days to fix an open finding of the default branch, per severity; null: no SLA for it. The same setting as the organization policy's max_age_days and max_age_kev_days." });

export const SlaBody = Type.Object({
  critical: Type.Optional(Days), high: Type.Optional(Days), medium: Type.Optional(Days), low: Type.Optional(Days), kev_days: Type.Optional(Days),
}, { additionalProperties: false, description: 'Absent or null: no SLA for it.' });

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A UTC day, YYYY-MM-DD.' });
const Severity = Type.Enum(['critical', 'high', 'medium', 'low', 'info']);

export const SeriesQuery = Type.Object({
  from: Type.Optional(Day),
  to: Type.Optional({ ...Day, description: 'The last day (default: yesterday, the last day that has ended).' }),
  interval: Type.Optional(Type.Enum(['day', 'week', 'month'], { description: 'Buckets: days, ISO weeks (dated by their Monday) or months; open figures are a bucket\'s last day\'s, events its sum. Default day.' })),
  severity: Type.Optional(Severity),
});
export const OrgSeriesQuery = Type.Object({ ...SeriesQuery.properties, team: Type.Optional(Type.String({ description: 'Only the repositories this team holds.' })) });

export const SummaryQuery = Type.Object({
  window: Type.Optional(Type.String({ pattern: '^\\d{1,5}d$', description: 'MTTR and SLA compliance over findings fixed in the last N days, e.g. 90d (the default).' })),
});
export const OrgSummaryQuery = Type.Object({ ...SummaryQuery.properties, team: Type.Optional(Type.String()) });

const Count = Type.Integer({ minimum: 0 });
const Open = Type.Object({ critical: Count, high: Count, medium: Count, low: Count, info: Count });

export const PointSchema = Type.Object({
  date: Day, open: Open, new: Count, fixed: Count, dismissed: Count, reopened: Count, breached: Count, kev_open: Count,
  vulnerabilities: Type.Integer({ minimum: 0, description: 'Open vulnerabilities, each counted once whatever its names.' }),
}, { $id: 'MetricsPoint' });

export const SeriesSchema = Type.Object({ points: Type.Array(PointSchema) }, { $id: 'MetricsSeries' });

const Mttr = Type.Object({ median_days: Type.Union([Type.Number(), Type.Null()]), p90_days: Type.Union([Type.Number(), Type.Null()]), fixed: Count });
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

export const SummarySchema = Type.Object({
  mttr: Type.Object({ critical: Mttr, high: Mttr, medium: Mttr, low: Mttr, info: Mttr }, { description: 'Days from first seen to fixed, over findings of default branches fixed within the window.' }),
  sla_compliance: Type.Object({ fixed_within_sla: Count, fixed: Count, ratio: Type.Union([Type.Number(), Type.Null()]) }),
  breached_now: Count,
  oldest_breached: Type.Array(Type.Object({
    id: Type.String(), repository_id: Type.String(), repository_name: Type.String(), rule_id: Type.String(), message: Type.String(), severity: Type.String(),
    first_seen_at: Type.String(), due_at: Type.String(), file_path: Nullable(Type.String()), package_name: Nullable(Type.String()),
  })),
  breached_by_team: Type.Array(Type.Object({ team_id: Type.String(), name: Type.String(), breached: Count }), {
    description: "Breached findings now per team of the organization, over the repositories each holds (a repository two teams hold counts for both); teams with none are left out.",
  }),
  breached_by_repository: Type.Array(Type.Object({ repository_id: Type.String(), name: Type.String(), breached: Count }), {
    description: 'The 25 repositories with the most breached findings now, the most first.',
  }),
}, { $id: 'MetricsSummary' });
