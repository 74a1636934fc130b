import type { RepoStatusRow } from '../db/schema.js';
import type { ComponentWithTool, FindingWithAnalysis, GraphRow } from './store.js';
import type { ComponentJson, FindingJson, PathComponentJson, StatusJson } from './schema.js';
import { refKey, type RefName } from '../domain/ref-name.js';
import { httpLink } from '../domain/links.js';
import { zeroCounts, type SeverityCounts } from '../domain/changes.js';

type AnalysisStatusRow = {
  tool: string; category: string; format: string; last_upload_id: string; upload_status: string; completed_at: string;
  open_critical: number; open_high: number; open_medium: number; open_low: number; open_info: number; dismissed: number;
};

type StatusRow = Omit<RepoStatusRow, 'repository_id'>;

function vulnerabilityCounts(json: string | null) {
  const counts: SeverityCounts = json ? (JSON.parse(json) as SeverityCounts) : zeroCounts();
  return { open: counts.critical + counts.high + counts.medium + counts.low + counts.info, ...counts };
}

export function presentStatus(repositoryId: string, ref: RefName, baseRef: string | null, row: StatusRow | undefined, analyses: AnalysisStatusRow[]): StatusJson {
  const c = row ?? { open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0 };
  return {
    repository_id: repositoryId,
    ref: refKey(ref), ref_kind: ref.kind, base_ref: baseRef,
    state: (row?.state ?? 'never_scanned') as 'never_scanned',
    last_upload_at: row?.last_upload_at ?? null,
    last_completed_at: row?.last_completed_at ?? null,
    findings: {
      open: c.open_critical + c.open_high + c.open_medium + c.open_low + c.open_info,
      critical: c.open_critical, high: c.open_high, medium: c.open_medium, low: c.open_low, info: c.open_info,
      dismissed: analyses.reduce((sum, a) => sum + a.dismissed, 0),
    },
    vulnerabilities: vulnerabilityCounts(row?.vulnerabilities ?? null),
    components: c.components,
    analyses: analyses.map((a) => ({
      tool: a.tool, category: a.category, format: a.format, last_upload_id: a.last_upload_id, status: a.upload_status,
      open_findings: a.open_critical + a.open_high + a.open_medium + a.open_low + a.open_info, completed_at: a.completed_at,
    })),
  };
}

export function presentFinding(row: FindingWithAnalysis): FindingJson {
  return {
    id: row.id, repository_id: row.repository_id, tool: row.tool, category: row.category, format: row.format,
    rule_id: row.rule_id, rule_name: row.rule_name, message: row.message, severity: row.severity as 'high', level: row.level, kind: row.kind,
    state: row.state as 'open', file_path: row.file_path, start_line: row.start_line, end_line: row.end_line,
    commit_sha: row.commit_sha, occurrences: row.occurrences,
    package: row.package_name ? { name: row.package_name, version: row.package_version, purl: row.purl } : null,
    // Rows stored before links were checked at parse time are checked here too.
    help_uri: httpLink(row.help_uri),
    aliases: row.aliases ? (JSON.parse(row.aliases) as string[]) : [],
    fixed_versions: row.fixed_versions ? (JSON.parse(row.fixed_versions) as string[]) : null,
    kev: Boolean(row.in_kev),
    epss: row.epss_probability === null || row.epss_percentile === null ? null
      : { probability: Number(row.epss_probability), percentile: Number(row.epss_percentile) },
    fingerprint: row.fingerprint, first_upload_id: row.first_upload_id,
    first_seen_at: row.created_at, updated_at: row.updated_at, fixed_at: row.fixed_at, reopened_at: row.reopened_at,
    fixed_upload_id: row.fixed_upload_id, reopened_upload_id: row.reopened_upload_id,
    ...(row.due_at !== undefined ? { due_at: row.due_at, sla: row.sla ?? null } : {}),
    dismissal: row.dismissed_reason !== null && row.dismissed_at !== null
      ? { reason: row.dismissed_reason as 'false_positive', comment: row.dismissed_comment, by: row.dismissed_by, at: row.dismissed_at, until: row.dismissed_until }
      : null,
    direct: row.place?.direct ?? null,
    path: row.place?.path?.map(presentPathComponent) ?? null,
  };
}

export function presentComponent(row: ComponentWithTool): ComponentJson {
  return {
    id: row.id, tool: row.tool, ref: row.ref, name: row.name, version: row.version, purl: row.purl, type: row.type,
    licenses: JSON.parse(row.licenses) as string[], hashes: JSON.parse(row.hashes) as { alg: string; value: string }[],
    depends_on: JSON.parse(row.depends_on) as string[], upload_id: row.upload_id,
    direct: row.direct === null ? null : Boolean(row.direct),
  };
}

export function presentPathComponent(row: GraphRow): PathComponentJson {
  return { id: row.id, ref: row.ref, name: row.name, version: row.version, purl: row.purl, direct: row.direct === null ? null : Boolean(row.direct) };
}
