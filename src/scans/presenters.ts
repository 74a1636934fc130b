import { Type, type Static, type TSchema } from 'typebox';
import type { RepoStatusRow, UploadRow } from '../db/schema.js';
import type { ComponentWithTool, FindingWithAnalysis } from './results-store.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });
const SeverityEnum = Type.Enum(['critical', 'high', 'medium', 'low', 'info']);

export const UploadSchema = Type.Object({
  id: Type.String(),
  repository_id: Type.String(),
  format: Type.String({ description: 'sarif, cyclonedx, spdx or findings.' }),
  status: Type.Enum(['pending', 'processing', 'complete', 'failed']),
  sha256: Type.String({ description: 'SHA-256 of the (decompressed) document.' }),
  size_bytes: Type.Integer(),
  category: Type.String({ description: 'Separates analyses of the same tool, as in GitHub code scanning.' }),
  commit_sha: Nullable(Type.String()),
  ref: Nullable(Type.String()),
  tools: Type.Array(Type.String(), { description: 'The tools found in the document (once processed).' }),
  error: Nullable(Type.String({ description: 'Why processing failed, in words.' })),
  counts: Type.Object({
    new: Type.Integer(), fixed: Type.Integer(), reopened: Type.Integer(), unchanged: Type.Integer(),
    findings: Type.Integer(), components: Type.Integer(),
  }, { description: 'What this upload changed (once complete).' }),
  created_at: Time,
  started_at: Nullable(Time),
  completed_at: Nullable(Time),
}, { title: 'Upload' });

export function presentUpload(row: UploadRow): Static<typeof UploadSchema> {
  return {
    id: row.id, repository_id: row.repository_id, format: row.format, status: row.status as 'pending',
    sha256: row.sha256, size_bytes: Number(row.size_bytes), category: row.category, commit_sha: row.commit_sha, ref: row.ref,
    tools: row.tools ? (JSON.parse(row.tools) as string[]) : [], error: row.error,
    counts: {
      new: row.new_count, fixed: row.fixed_count, reopened: row.reopened_count, unchanged: row.unchanged_count,
      findings: row.findings_count, components: row.components_count,
    },
    created_at: row.created_at, started_at: row.started_at, completed_at: row.completed_at,
  };
}

export const StatusSchema = Type.Object({
  repository_id: Type.String(),
  state: Type.Enum(['never_scanned', 'pending', 'processing', 'complete', 'failed']),
  last_upload_at: Nullable(Time),
  last_completed_at: Nullable(Time),
  findings: Type.Object({
    open: Type.Integer(), critical: Type.Integer(), high: Type.Integer(), medium: Type.Integer(), low: Type.Integer(), info: Type.Integer(),
  }, { description: 'Open findings across all analyses.' }),
  components: Type.Integer(),
  analyses: Type.Array(Type.Object({
    tool: Type.String(), category: Type.String(), format: Type.String(), last_upload_id: Type.String(),
    status: Type.String(), open_findings: Type.Integer(), completed_at: Time,
  })),
}, { title: 'ScanStatus' });

type AnalysisStatusRow = {
  tool: string; category: string; format: string; last_upload_id: string; upload_status: string; completed_at: string;
  open_critical: number; open_high: number; open_medium: number; open_low: number; open_info: number;
};

export function presentStatus(repositoryId: string, row: RepoStatusRow | undefined, analyses: AnalysisStatusRow[]): Static<typeof StatusSchema> {
  const c = row ?? { open_critical: 0, open_high: 0, open_medium: 0, open_low: 0, open_info: 0, components: 0 };
  return {
    repository_id: repositoryId,
    state: (row?.state ?? 'never_scanned') as 'never_scanned',
    last_upload_at: row?.last_upload_at ?? null,
    last_completed_at: row?.last_completed_at ?? null,
    findings: {
      open: c.open_critical + c.open_high + c.open_medium + c.open_low + c.open_info,
      critical: c.open_critical, high: c.open_high, medium: c.open_medium, low: c.open_low, info: c.open_info,
    },
    components: c.components,
    analyses: analyses.map((a) => ({
      tool: a.tool, category: a.category, format: a.format, last_upload_id: a.last_upload_id, status: a.upload_status,
      open_findings: a.open_critical + a.open_high + a.open_medium + a.open_low + a.open_info, completed_at: a.completed_at,
    })),
  };
}

export const FindingSchema = Type.Object({
  id: Type.String(),
  repository_id: Type.String(),
  tool: Type.String(),
  category: Type.String(),
  format: Type.String(),
  rule_id: Type.String(),
  rule_name: Nullable(Type.String()),
  message: Type.String(),
  severity: SeverityEnum,
  level: Nullable(Type.String({ description: "The tool's own level or severity word." })),
  kind: Nullable(Type.String({ description: 'SARIF result kind: "fail" (a problem), "open" or "review" (needs a look).' })),
  state: Type.Union([Type.Literal('open'), Type.Literal('fixed')]),
  file_path: Nullable(Type.String()),
  start_line: Nullable(Type.Integer()),
  end_line: Nullable(Type.Integer()),
  package: Nullable(Type.Object({ name: Type.String(), version: Nullable(Type.String()), purl: Nullable(Type.String()) })),
  help_uri: Nullable(Type.String()),
  fingerprint: Type.String(),
  first_upload_id: Type.String(),
  first_seen_at: Time,
  updated_at: Time,
  fixed_at: Nullable(Time),
  reopened_at: Nullable(Time),
}, { title: 'Finding' });

export function presentFinding(row: FindingWithAnalysis): Static<typeof FindingSchema> {
  return {
    id: row.id, repository_id: row.repository_id, tool: row.tool, category: row.category, format: row.format,
    rule_id: row.rule_id, rule_name: row.rule_name, message: row.message, severity: row.severity as 'high', level: row.level, kind: row.kind,
    state: row.state as 'open', file_path: row.file_path, start_line: row.start_line, end_line: row.end_line,
    package: row.package_name ? { name: row.package_name, version: row.package_version, purl: row.purl } : null,
    help_uri: row.help_uri, fingerprint: row.fingerprint, first_upload_id: row.first_upload_id,
    first_seen_at: row.created_at, updated_at: row.updated_at, fixed_at: row.fixed_at, reopened_at: row.reopened_at,
  };
}

export const ComponentSchema = Type.Object({
  id: Type.String(),
  tool: Type.String({ description: 'The SBOM generator that reported it.' }),
  ref: Nullable(Type.String({ description: 'bom-ref (CycloneDX) or SPDXID.' })),
  name: Type.String(),
  version: Nullable(Type.String()),
  purl: Nullable(Type.String()),
  type: Nullable(Type.String()),
  licenses: Type.Array(Type.String()),
  hashes: Type.Array(Type.Object({ alg: Type.String(), value: Type.String() })),
  depends_on: Type.Array(Type.String(), { description: 'refs of the components it depends on.' }),
  upload_id: Type.String(),
}, { title: 'Component' });

export function presentComponent(row: ComponentWithTool): Static<typeof ComponentSchema> {
  return {
    id: row.id, tool: row.tool, ref: row.ref, name: row.name, version: row.version, purl: row.purl, type: row.type,
    licenses: JSON.parse(row.licenses) as string[], hashes: JSON.parse(row.hashes) as { alg: string; value: string }[],
    depends_on: JSON.parse(row.depends_on) as string[], upload_id: row.upload_id,
  };
}
