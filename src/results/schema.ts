import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Nullable, Time } from '../http/schemas.js';
import { SEVERITIES } from '../domain/scan.js';
import { RefKindEnum, RefQueryField } from '../refs/schema.js';

const SeverityEnum = Type.Enum([...SEVERITIES]);

export const DismissReasonEnum = Type.Enum(['false_positive', 'wont_fix', 'used_in_tests', 'accepted_risk', 'not_affected', 'suppressed']);

export const StatusSchema = Type.Object({
  repository_id: Type.String(),
  ref: Type.String({ description: 'The ref described, as ?ref= names it: the default branch unless ?ref= named another.' }),
  ref_kind: RefKindEnum,
  base_ref: Nullable(Type.String({ description: "A pull request's base branch (as of its latest upload)." })),
  state: Type.Enum(['never_scanned', 'pending', 'processing', 'complete', 'failed']),
  last_upload_at: Nullable(Time),
  last_completed_at: Nullable(Time),
  findings: Type.Object({
    open: Type.Integer(), critical: Type.Integer(), high: Type.Integer(), medium: Type.Integer(), low: Type.Integer(), info: Type.Integer(),
    dismissed: Type.Integer({ description: 'Present and dismissed (by hand or by the tool itself); not counted in open or the severities.' }),
  }, { description: "Open findings across the ref's analyses, and the dismissed ones apart." }),
  vulnerabilities: Type.Object({
    open: Type.Integer(), critical: Type.Integer(), high: Type.Integer(), medium: Type.Integer(), low: Type.Integer(), info: Type.Integer(),
  }, {
    description: 'Open vulnerabilities, each counted once: findings naming the same vulnerability (by id or any alias, from the finding '
      + 'or the advisory database) in the same package are one, at its highest severity. findings counts each finding.',
  }),
  components: Type.Integer(),
  analyses: Type.Array(Type.Object({
    tool: Type.String(), category: Type.String(), format: Type.String(), last_upload_id: Type.String(),
    status: Type.String(), open_findings: Type.Integer(), completed_at: Time,
  })),
}, { title: 'ScanStatus' });

export const PathComponentSchema = Type.Object({
  id: Type.String(), ref: Nullable(Type.String()), name: Type.String(), version: Nullable(Type.String()), purl: Nullable(Type.String()),
  direct: Nullable(Type.Boolean()),
}, { title: 'PathComponent' });
export type PathComponentJson = Static<typeof PathComponentSchema>;

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
  state: Type.Union([Type.Literal('open'), Type.Literal('fixed'), Type.Literal('dismissed')]),
  file_path: Nullable(Type.String()),
  start_line: Nullable(Type.Integer()),
  end_line: Nullable(Type.Integer()),
  commit_sha: Nullable(Type.String({ description: 'The commit the report names for this finding (Gitleaks: the commit a secret was found in).' })),
  occurrences: Type.Integer({ minimum: 1, description: 'How many times the tool reported this same result (same rule, place, lines and message) in the upload that last saw it; a repeat is counted, not listed twice.' }),
  package: Nullable(Type.Object({ name: Type.String(), version: Nullable(Type.String()), purl: Nullable(Type.String()) })),
  help_uri: Nullable(Type.String()),
  aliases: Type.Array(Type.String(), { description: "A vulnerability's other ids (CVE, GHSA, ...), for findings matched from advisories." }),
  fixed_versions: Nullable(Type.Array(Type.String(), { description: 'The nearest fixed versions above the installed one, for findings matched from advisories.' })),
  kev: Type.Boolean({ description: 'In the CISA KEV catalogue (known to be exploited), through the rule id or an alias known to the advisory database.' }),
  epss: Nullable(Type.Object({ probability: Type.Number(), percentile: Type.Number() }, { description: "FIRST EPSS score of the finding's highest-scored CVE; null when none is scored." })),
  fingerprint: Type.String(),
  first_upload_id: Type.String(),
  first_seen_at: Time,
  updated_at: Time,
  fixed_at: Nullable(Time),
  reopened_at: Nullable(Time),
  due_at: Type.Optional(Nullable(Time)),
  sla: Type.Optional(Nullable(Type.Enum(['on_track', 'due_soon', 'breached'], { description: "Against the organisation's SLA (GET /orgs/{id}/sla): due soon within the last fifth of its window. due_at and sla are null when dismissed or no SLA applies; in the findings list and CSV." }))),
  fixed_upload_id: Nullable(Type.String({ description: 'The upload that fixed it (null while open).' })),
  reopened_upload_id: Nullable(Type.String({ description: 'The upload that last reopened it: a reopened finding keeps its first_upload_id, so it never counts as new.' })),
  dismissal: Nullable(Type.Object({
    reason: DismissReasonEnum,
    comment: Nullable(Type.String()),
    by: Nullable(Type.String({ description: 'The login of whoever dismissed it.' })),
    at: Time,
    until: Nullable(Type.String({ format: 'date-time', description: 'When the dismissal ends and the finding is open again.' })),
  }, { description: "The fingerprint's dismissal in this repository: it holds on every ref, and for a fixed finding waits for its return." })),
  direct: Nullable(Type.Boolean({ description: 'For a package an SBOM of the ref lists: whether it is a direct dependency; null when unknown (no graph) or no package.' })),
  path: Nullable(Type.Array(PathComponentSchema, { description: 'How the package is pulled in: the shortest path from a direct dependency down to it (GET /repos/{id}/components/{component_id}/paths lists more).' })),
}, { title: 'Finding' });

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
  upload_id: Type.String({ description: 'The upload that brought the component as it is: an SBOM uploaded again keeps what it lists unchanged.' }),
  direct: Nullable(Type.Boolean({ description: "true: what the SBOM describes depends on it; false: only through other packages; null: unknown (the SBOM has no dependency graph, or does not reach it)." })),
}, { title: 'Component' });

export const ComponentPathsSchema = Type.Object({
  total: Type.Integer({ description: 'How many paths lead to it (counted up to 1,000).' }),
  paths: Type.Array(Type.Array(PathComponentSchema), { description: 'At most 5, shortest first: each from a direct dependency down to the component.' }),
}, { title: 'ComponentPaths' });

export const ComponentParams = Type.Object({ id: Type.String(), component_id: Type.String() });

export const StatusQuery = Type.Object({ ref: Type.Optional(RefQueryField) });

export const FindingsQuery = Type.Object({
  ...PageQuery.properties,
  state: Type.Optional(Type.Enum(['open', 'fixed', 'dismissed', 'all'], { description: 'Default open; all when introduced_in, fixed_in or reopened_in is given.' })),
  severity: Type.Optional(SeverityEnum),
  tool: Type.Optional(Type.String({ maxLength: 200 })),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the rule id, message or file path.' })),
  ref: Type.Optional(RefQueryField),
  vs_base: Type.Optional(Type.Enum(['new', 'fixed'], {
    description: 'With a pull request ref: new lists its open findings not open on its base branch (for the same tool, category and format); '
      + "fixed lists the base's open findings the pull request no longer has.",
  })),
  introduced_in: Type.Optional(Type.String({ maxLength: 64, description: 'An upload id: the findings it reported first (new). Reopened ones are not new: see reopened_in.' })),
  fixed_in: Type.Optional(Type.String({ maxLength: 64, description: 'An upload id: the findings it fixed that are still fixed (a finding that came back is no longer listed here).' })),
  reopened_in: Type.Optional(Type.String({ maxLength: 64, description: "An upload id: the fixed findings it reported again (each finding's latest reopening)." })),
  kev: Type.Optional(Type.Boolean({ description: 'true: only findings in the CISA KEV catalogue; false: only those not in it.' })),
  sort: Type.Optional(Type.Enum(['severity', 'epss', 'due_at'], { description: 'Default severity (most severe first); epss: highest EPSS probability first, unscored last; due_at: soonest due first, findings without a due date last.' })),
  sla: Type.Optional(Type.Enum(['on_track', 'due_soon', 'breached'], { description: "Open findings in this state against the organisation's SLA." })),
  group: Type.Optional(Type.Literal('vulnerability', {
    description: 'Lists vulnerabilities instead of findings (a VulnerabilityGroup each): findings naming the same vulnerability, by id or any alias '
      + '(from the finding or the advisory database), in the same package, with the tools that reported it. state, severity and tool '
      + 'apply to the group; the other filters do not combine with it.',
  })),
});

export const VulnerabilityGroupSchema = Type.Object({
  names: Type.Array(Type.String(), { description: 'Every id and alias it goes by here.' }),
  package: Type.String({ description: 'The package: its purl without version.' }),
  severity: SeverityEnum,
  state: Type.Enum(['open', 'dismissed', 'fixed'], { description: 'open when any of its findings is, else dismissed when any is.' }),
  tools: Type.Array(Type.String()),
  finding_ids: Type.Array(Type.String()),
}, { title: 'VulnerabilityGroup' });

export const ComponentsQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the name or purl.' })),
  ref: Type.Optional(RefQueryField),
});

export type StatusJson = Static<typeof StatusSchema>;
export type FindingJson = Static<typeof FindingSchema>;
export type ComponentJson = Static<typeof ComponentSchema>;

/** The findings list's items with group=vulnerability, which the route's own schema (findings) cannot name: published under its $id. */
export const VulnerabilityGroupComponent = { ...VulnerabilityGroupSchema, $id: 'VulnerabilityGroup' };

const PackageVersions = Type.Object({ package: Type.String(), purl: Nullable(Type.String({ description: 'Without version.' })), versions: Type.Array(Type.String()) });
const PackageChange = Type.Object({ package: Type.String(), purl: Nullable(Type.String()), from: Type.Array(Type.String()), to: Type.Array(Type.String()) });
const VulnerabilityChange = Type.Object({ id: Type.String({ description: 'Its CVE when it names one, else the rule id.' }), package: Type.String({ description: 'The purl without version.' }), severity: Type.String() });

export const ComponentsDiffSchema = Type.Object({
  counts: Type.Object({
    added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer(), licenses_changed: Type.Integer(),
    vulnerabilities_introduced: Type.Integer(), vulnerabilities_fixed: Type.Integer(),
  }),
  added: Type.Array(PackageVersions),
  removed: Type.Array(PackageVersions),
  changed: Type.Array(PackageChange, { description: 'Packages in both whose set of versions differs, once each.' }),
  licenses_changed: Type.Array(PackageChange),
  vulnerabilities_introduced: Type.Array(VulnerabilityChange),
  vulnerabilities_fixed: Type.Array(VulnerabilityChange),
}, { title: 'ComponentsDiff' });

export const ComponentsDiffQuery = Type.Object({
  base: Type.String({ minLength: 1, maxLength: 1000, description: 'A ref name (as ?ref= takes it) or an analysis id.' }),
  head: Type.String({ minLength: 1, maxLength: 1000, description: 'A ref name or an analysis id.' }),
  format: Type.Optional(Type.Enum(['json', 'markdown'], { description: 'markdown: the same as Accept: text/markdown, for a pull request comment.' })),
});
