/**
 * Table types for Kysely. Conventions, the same on SQLite and PostgreSQL:
 * ids are UUIDv7 strings; timestamps are ISO 8601 UTC strings (timestamptz on PostgreSQL, parsed
 * back to ISO strings by the pg driver setup); booleans are 0/1 integers; lists are JSON text.
 */
import type { Generated, Selectable } from 'kysely';

export interface UsersTable {
  id: string;
  login: string;
  name: string | null;
  email: string | null;
  avatar_url: string | null;
  is_admin: number;
  /** null for local users (the dev user). */
  provider_id: string | null;
  forge_user_id: string | null;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  /** The forge's sign-in access token, sealed (auth/forge-token.ts); only for checking who may link an org. */
  forge_token?: string | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scope: string;
  /** JSON array of org ids, or null for all of the user's orgs. */
  org_ids: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** Where a membership or a team comes from: made here, synced from the forge, granted by the IdP's groups, provisioned by SCIM. */
export type Source = 'local' | 'forge' | 'idp' | 'scim';

/** What every member may do to every repository of the org: read it (the default), or nothing beyond what their teams hold. */
export type BaseRole = 'read' | 'none';

/** A team's grant on a repository. */
export type RepoRole = 'read' | 'triage' | 'admin';

export interface OrgsTable {
  id: string;
  name: string;
  name_key: string;
  description: string;
  base_role: Generated<BaseRole>;
  /** 1: a forge-linked org's repositories accept uploads from their own pipelines (migration 0031). */
  ci_default_rule: Generated<number>;
  created_at: string;
  updated_at: string;
}

export type OrgRole = 'owner' | 'member';

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: OrgRole;
  source: Generated<Source>;
  created_at: string;
}

export interface ReposTable {
  id: string;
  org_id: string;
  name: string;
  name_key: string;
  url: string | null;
  default_branch: string | null;
  /** The forge's immutable id of the repository, when its org follows the forge: renames and transfers keep it. */
  forge_id: string | null;
  /** owner/name (GitLab: the project's full path) as the forge last said. */
  full_name: string | null;
  visibility: string | null;
  archived: Generated<number>;
  /** Deleted on the forge: kept, with its results, until an owner deletes it here. */
  gone: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface TeamsTable {
  id: string;
  org_id: string;
  name: string;
  name_key: string;
  description: string;
  source: Generated<Source>;
  /** The forge's id of a team that follows the forge (GitLab: the subgroup's id). */
  forge_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface TeamRepositoriesTable {
  team_id: string;
  repository_id: string;
  role: RepoRole;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  /** "local" (added here) or "idp" (granted by a group mapping at sign-in, which may take it away again). */
  source: Generated<Source>;
}

export interface ScimTokensTable {
  org_id: string;
  token_hash: string;
  created_at: string;
  /** The sign-in provider whose accounts SCIM users are linked to; null: the only OpenID Connect provider, if one. */
  provider_id: string | null;
}

export interface ScimUsersTable {
  id: string;
  org_id: string;
  user_name: string;
  user_name_key: string;
  external_id: string | null;
  display_name: string | null;
  email: string | null;
  active: number;
  /** The account this SCIM user is: one of the org's trusted provider whose sub = externalId, else login = userName. */
  user_id: string | null;
  created_at: string;
  updated_at: string;
}
export type ScimUserRow = Selectable<ScimUsersTable>;

/** A SCIM Group: the team it is (teams.source "scim") and what SCIM says beyond its name. */
export interface ScimGroupsTable {
  team_id: string;
  external_id: string | null;
}

/** A group's members as the IdP sent them (SCIM user ids, linked to an account or not). */
export interface ScimGroupMembersTable {
  team_id: string;
  scim_user_id: string;
}

export interface UploadsTable {
  id: string;
  repository_id: string;
  format: string;
  status: string;
  sha256: string;
  size_bytes: number;
  category: string;
  commit_sha: string | null;
  /** As the uploader sent it; ref_kind and ref_name are what it was read as (the default branch when absent). */
  ref: string | null;
  ref_kind: string;
  ref_name: string;
  /** A pull request's base branch (given, else the default branch); null for other refs. */
  base_ref: string | null;
  /** Against the base branch's results when processed (pull requests only). */
  vs_base_new: number | null;
  vs_base_fixed: number | null;
  tools: string | null;
  error: string | null;
  created_by: string | null;
  api_key_id: string | null;
  /** The short-lived CI token (ci_tokens) it was uploaded with, if any. */
  ci_token_id: Generated<string | null>;
  attempts: Generated<number>;
  lease_until: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  new_count: Generated<number>;
  fixed_count: Generated<number>;
  reopened_count: Generated<number>;
  unchanged_count: Generated<number>;
  findings_count: Generated<number>;
  components_count: Generated<number>;
  /** The gate this upload was judged to once complete (JSON), null before or when it failed. */
  gate: Generated<string | null>;
  /** New, reopened and fixed findings by severity (JSON), once complete. */
  changes: Generated<string | null>;
  /** New and reopened findings by severity as its gate counted them, with fail_on_new's few named (JSON); null before judged. */
  introduced: Generated<string | null>;
  /** SBOM components whose ecosystem or version cannot be ordered, so were not matched to advisories. */
  components_unchecked: Generated<number | null>;
  /** A pull request's head commit and merge base, as CI gave them (check runs go on the head). */
  head_sha: Generated<string | null>;
  base_sha: Generated<string | null>;
}

export interface UploadContentsTable {
  upload_id: string;
  content: Buffer;
  /** 'gzip': as the upload arrived, or compressed on PostgreSQL; null: the document itself. */
  encoding: 'gzip' | null;
  /** `s3://bucket/key` when the bytes are in object storage (SERVICE_BLOB_URL; `content` is then empty). */
  blob_url: string | null;
}

/** An object whose upload_contents row was deleted, to be deleted from the store (migration 0041). */
export interface BlobDeletionsTable {
  url: string;
}

/** Kept per analysis as uploads complete, and summed per repository, so that no read counts findings. */
interface ScanTotals {
  open_critical: number;
  open_high: number;
  open_medium: number;
  open_low: number;
  open_info: number;
  components: number;
}

export interface AnalysesTable extends ScanTotals {
  id: string;
  repository_id: string;
  ref_id: string;
  tool: string;
  tool_version: string | null;
  category: string;
  format: string;
  last_upload_id: string;
  completed_at: string;
  fixed_total: number;
  /** Its findings present and dismissed (not counted in the open counts). */
  dismissed: Generated<number>;
}

export interface FindingsTable {
  id: string;
  repository_id: string;
  /** Its analysis's ref, so a ref's findings page walks one index. */
  ref_id: string;
  analysis_id: string;
  fingerprint: string;
  rule_id: string;
  rule_name: string | null;
  message: string;
  severity: string;
  severity_rank: number;
  level: string | null;
  kind: string | null;
  file_path: string | null;
  start_line: number | null;
  end_line: number | null;
  package_name: string | null;
  package_version: string | null;
  purl: string | null;
  help_uri: string | null;
  state: string;
  first_upload_id: string;
  created_at: string;
  updated_at: string;
  fixed_at: string | null;
  reopened_at: string | null;
  /** The upload that last fixed it (null while open, and for findings fixed before migration 0005). */
  fixed_upload_id: string | null;
  /** The upload that last reopened it. */
  reopened_upload_id: string | null;
  /** The commit the report names for this finding (Gitleaks' Commit), when it names one. */
  commit_sha: Generated<string | null>;
  /** JSON of every location, when the tool gave more than one. */
  locations: Generated<string | null>;
  snippet: Generated<string | null>;
  /** How many times the tool reported this same result in the upload that last saw it (at least 1). */
  occurrences: Generated<number>;
  /** A vulnerability's other ids (JSON array), from its advisory; null for other findings. */
  aliases: Generated<string | null>;
  /** The nearest fixed versions above the installed one (JSON array); null for other findings. */
  fixed_versions: Generated<string | null>;
}

export interface ComponentsTable {
  id: string;
  repository_id: string;
  analysis_id: string;
  upload_id: string;
  ref: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  licenses: string;
  hashes: string;
  depends_on: string;
  /** OSV ecosystem + normalised package name from the purl (advisories/ecosystems), null when none applies. */
  package_key: string | null;
  /** 1: the SBOM's root depends on it; 0: only through other packages; null: unknown (no graph). Migration 0032. */
  direct: number | null;
}

/**
 * A branch, tag or pull request of a repository that has received uploads, with its state and
 * aggregates (summed from its analyses as uploads complete). The repository's status row mirrors its
 * default branch's.
 */
export interface RefsTable extends ScanTotals {
  id: string;
  repository_id: string;
  kind: string;
  name: string;
  /** A pull request's base branch as of its latest upload. */
  base_ref: string | null;
  state: string;
  last_upload_at: string | null;
  last_completed_at: string | null;
  fixed_total: number;
  /** Open vulnerabilities by severity (JSON), each counted once whatever its names and reporters; null before any. */
  vulnerabilities: Generated<string | null>;
  /** Its analyses as the status lists them (JSON, `AnalysisStatus[]`), written with its totals; null before any. */
  analyses: Generated<string | null>;
  /** Components its last advisory match could not check; null when its next SBOM is to be matched in full. */
  components_unchecked: Generated<number | null>;
}

export interface RepoStatusTable extends ScanTotals {
  repository_id: string;
  state: string;
  last_upload_at: string | null;
  last_completed_at: string | null;
  vulnerabilities: Generated<string | null>;
}

export interface AuditEventsTable {
  id: string;
  org_id: string | null;
  actor_id: string | null;
  actor_login: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  details: string | null;
  created_at: string;
}

export interface OrgPoliciesTable {
  org_id: string;
  /** The policy document (JSON). */
  document: string;
  updated_at: string;
}

export interface RepoPoliciesTable {
  repository_id: string;
  document: string;
  updated_at: string;
}

export interface BadgeTokensTable {
  repository_id: string;
  token_hash: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  org_id: string;
  url: string;
  /** Signs deliveries; never returned or logged. */
  secret: string;
  /** JSON array of event names. */
  events: string;
  min_severity: string;
  format: string;
  active: number;
  /** JSON array of repository ids, or null for every repository of the org. */
  repository_ids: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  /** Also the X-Scanyard-Delivery header: the same on every attempt. */
  id: string;
  webhook_id: string;
  event: string;
  /** The event as JSON; rendered in the hook's format when sent. */
  payload: string;
  /** pending, delivering, succeeded or failed. */
  status: string;
  /** Attempts so far; also the fencing token of the current claim. */
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_response_body: string | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** One verdict sent to a forge (check run, comment, commit status, note, report): the outbox row and its attempts. */
export interface ForgeDeliveriesTable {
  id: string;
  repository_id: string;
  upload_id: string | null;
  /** check_run, comment, status, note or report. */
  kind: string;
  /** Deliveries of one thread (pull request or branch, and category) are sent in order. */
  thread: string;
  /** The verdict as JSON; rendered for the forge when sent. */
  payload: string;
  /** pending, delivering, succeeded or failed. */
  status: string;
  attempts: Generated<number>;
  /** JSON [{status_code, at}], one per attempt. */
  attempt_log: Generated<string>;
  /** What the forge called what it created (check run id, comment id), once it answered. */
  external_id: string | null;
  /** Progress within one delivery (annotation batches sent), JSON. */
  external_state: string | null;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_response_body: string | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** What is posted on pull requests (JSON {checks, comment}): an organisation's, or a repository's own. */
export interface OrgPrFeedbackTable {
  org_id: string;
  feedback: string;
}

export interface RepoPrFeedbackTable {
  repository_id: string;
  feedback: string;
}

/** A pull request's (or branch's) verdict thread: its one comment and what it last said. */
export interface ForgeThreadsTable {
  repository_id: string;
  thread: string;
  comment_id: string | null;
  digest: string | null;
  upload_created_at: string;
  upload_id: string;
}

/** A SERVICE_ADMINS login entry and the forge account its first sign-in pinned it to. */
export interface AdminPinsTable {
  entry: string;
  provider_id: string;
  forge_user_id: string;
  pinned_at: string;
}

/** A dismissal of one fingerprint in one repository: every ref's finding of that fingerprint is dismissed. */
export interface DismissalsTable {
  repository_id: string;
  fingerprint: string;
  reason: string;
  comment: string | null;
  dismissed_by: string | null;
  dismissed_at: string;
  dismissed_until: string | null;
  /** The suppression rule that made it, if one did. */
  suppression_id: Generated<string | null>;
  /** The VEX upload whose statement made it, if one did. */
  vex_upload_id: Generated<string | null>;
}

/** The latest VEX statement a repository received per vulnerability and product (see migration 0017). */
export interface VexStatementsTable {
  repository_id: string;
  /** The id the statement names the vulnerability by; its other ids are in `aliases` (JSON array). */
  vulnerability: string;
  /** A purl without version, qualifiers or subpath; or `ref:` and a bom-ref the repository's SBOMs resolve. */
  product: string;
  /** The version the statement is about; '' for every version. */
  version: Generated<string>;
  aliases: string;
  status: string;
  justification: string | null;
  detail: string | null;
  upload_id: string;
  stated_at: string;
}

/** An org's rule that dismisses matching findings, present and future. */
export interface SuppressionsTable {
  id: string;
  org_id: string;
  tool: string | null;
  rule_id: string | null;
  /** A glob over the finding's file path (suppressions/glob.ts). */
  path: string | null;
  /** A purl prefix, with or without version. */
  purl: string | null;
  /** An advisory id, matched against the finding's rule id. */
  advisory: string | null;
  /** JSON array of repository ids; null for every repository of the org. */
  repository_ids: string | null;
  reason: string;
  comment: string | null;
  expires_at: string | null;
  created_by: string | null;
  created_at: string;
}

/** A triage change of a fingerprint: dismissed, reopened by hand, dismissal expired. */
export interface FindingEventsTable {
  id: string;
  repository_id: string;
  fingerprint: string;
  event: string;
  reason: string | null;
  comment: string | null;
  actor_id: string | null;
  created_at: string;
}

/** The help text of an analysis's rules, replaced with each upload that applies the analysis. */
export interface FindingRulesTable {
  analysis_id: string;
  rule_id: string;
  help: string;
}

export interface CiTrustRulesTable {
  id: string;
  org_id: string;
  /** The id of a SERVICE_CI_ISSUERS entry. */
  issuer: string;
  repository: string;
  ref: string | null;
  event: string | null;
  environment: string | null;
  target_repo_id: string | null;
  created_by: string | null;
  created_at: string;
}
export type CiTrustRuleRow = Selectable<CiTrustRulesTable>;

export interface CiTrustBindingsTable {
  rule_id: string;
  repository_name: string;
  repository_id_claim: string;
  created_at: string;
}

export interface CiTokenUsesTable {
  use_key: string;
  expires_at: string;
}

export interface SamlRequestsTable {
  provider_id: string;
  request_id: string;
  binding_hash: string;
  return_to: string;
  created_at: string;
  expires_at: string;
}

export interface SamlAnswersTable {
  ticket_hash: string;
  provider_id: string;
  binding_hash: string;
  /** JSON: the verified user and their groups. */
  answer: string;
  return_to: string;
  expires_at: string;
}

export interface SamlAssertionsTable {
  provider_id: string;
  assertion_id: string;
  expires_at: string;
}

export interface CiTokensTable {
  id: string;
  token_hash: string;
  issuer: string;
  repository: string;
  /** JSON arrays of ids. */
  org_ids: string;
  repository_ids: string;
  ref: string;
  event: string;
  base_ref: string | null;
  commit_sha: string | null;
  claims: string;
  created_at: string;
  expires_at: string;
}
export type CiTokenRow = Selectable<CiTokensTable>;
/** An org that follows a forge owner (forge/). */
export interface ForgeLinksTable {
  org_id: string;
  provider_id: string;
  owner: string;
  /** owner in lower case: GitHub and GitLab names are case-insensitive. */
  owner_key: string;
  linked_by: string | null;
  created_at: string;
  last_synced_at: string | null;
  last_error: string | null;
  /** A pass is due from then on (null: only the reconcile interval). */
  sync_due_at: string | null;
  /** What the due pass must read, comma-separated ("repos,members,teams"). */
  sync_parts: string | null;
  lease_until: string | null;
}

/** A webhook delivery from a forge, queued until a worker applies it. */
export interface ForgeEventsTable {
  id: string;
  provider_id: string;
  delivery_id: string;
  event: string;
  payload: string;
  status: 'pending' | 'applying' | 'applied' | 'failed';
  attempts: Generated<number>;
  lease_until: string | null;
  received_at: string;
  applied_at: string | null;
  error: string | null;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  orgs: OrgsTable;
  memberships: MembershipsTable;
  scim_tokens: ScimTokensTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  repos: ReposTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_repositories: TeamRepositoriesTable;
  forge_links: ForgeLinksTable;
  forge_events: ForgeEventsTable;
  uploads: UploadsTable;
  ci_trust_rules: CiTrustRulesTable;
  ci_trust_bindings: CiTrustBindingsTable;
  ci_token_uses: CiTokenUsesTable;
  ci_tokens: CiTokensTable;
  saml_requests: SamlRequestsTable;
  saml_assertions: SamlAssertionsTable;
  saml_answers: SamlAnswersTable;
  upload_contents: UploadContentsTable;
  blob_deletions: BlobDeletionsTable;
  analyses: AnalysesTable;
  findings: FindingsTable;
  components: ComponentsTable;
  repo_status: RepoStatusTable;
  refs: RefsTable;
  audit_events: AuditEventsTable;
  admin_pins: AdminPinsTable;
  org_policies: OrgPoliciesTable;
  repo_policies: RepoPoliciesTable;
  badge_tokens: BadgeTokensTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  forge_deliveries: ForgeDeliveriesTable;
  forge_threads: ForgeThreadsTable;
  org_pr_feedback: OrgPrFeedbackTable;
  repo_pr_feedback: RepoPrFeedbackTable;
  advisories: AdvisoriesTable;
  advisory_aliases: AdvisoryAliasesTable;
  advisory_packages: AdvisoryPackagesTable;
  advisory_ecosystems: AdvisoryEcosystemsTable;
  advisory_sources: AdvisorySourcesTable;
  dismissals: DismissalsTable;
  vex_statements: VexStatementsTable;
  finding_events: FindingEventsTable;
  finding_rules: FindingRulesTable;
  suppressions: SuppressionsTable;
  kev_entries: KevEntriesTable;
  epss_scores: EpssScoresTable;
  repo_snapshots: RepoSnapshotsTable;
  org_snapshots: OrgSnapshotsTable;
}

/** A repository's default branch at the end of one UTC day, and that day's events (metrics/). */
export interface RepoSnapshotsTable extends SnapshotCounts {
  repository_id: string;
  org_id: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
}

/** The sum of an organisation's repository snapshots of one day. */
export interface OrgSnapshotsTable extends SnapshotCounts {
  org_id: string;
  day: string;
}

interface SnapshotCounts {
  open_critical: number;
  open_high: number;
  open_medium: number;
  open_low: number;
  open_info: number;
  opened: number;
  fixed: number;
  dismissed: number;
  reopened: number;
  breached: number;
  kev_open: number;
  vulnerabilities: number;
}

/** An OSV record as imported (advisories/osv.ts); timestamps are UTC ISO text. */
export interface AdvisoriesTable {
  id: string;
  modified: string;
  published: string | null;
  withdrawn: string | null;
  /** JSON array of the record's other ids (CVE, GHSA, ...). */
  aliases: string;
  summary: string | null;
  details: string | null;
  severity: string;
  cvss_score: number | null;
  imported_at: string;
  /** JSON array of {type, url} (http and https only); null when the record has none. */
  references: Generated<string | null>;
}

export interface AdvisoryAliasesTable {
  alias: string;
  advisory_id: string;
}

/** One `affected[]` entry of an advisory; `ranges` and `versions` are its JSON. */
export interface AdvisoryPackagesTable {
  advisory_id: string;
  ordinal: number;
  ecosystem: string;
  name: string;
  package_key: string | null;
  ranges: string;
  versions: string;
}

/** Each ecosystem an advisory affects, once, with the advisory's `modified`: what the list by ecosystem walks in its order. */
export interface AdvisoryEcosystemsTable {
  advisory_id: string;
  ecosystem: string;
  modified: string;
}

/** One CVE of the CISA KEV catalogue (advisories/kev.ts); dates as the catalogue gives them. */
export interface KevEntriesTable {
  cve: string;
  vendor_project: string;
  product: string;
  vulnerability_name: string;
  date_added: string;
  due_date: string | null;
  known_ransomware_campaign_use: string | null;
  /** When Scanyard first imported the CVE (the SLA's KEV clock starts no earlier); kept across re-imports. */
  imported_at: Generated<string | null>;
}

/** One CVE's FIRST EPSS score (advisories/epss.ts). */
export interface EpssScoresTable {
  cve: string;
  probability: number;
  percentile: number;
}

export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OrgRow = Selectable<OrgsTable>;
export type RepoRow = Selectable<ReposTable>;
export type TeamRow = Selectable<TeamsTable>;
export type UploadRow = Selectable<UploadsTable>;
export type AnalysisRow = Selectable<AnalysesTable>;
export type FindingRow = Selectable<FindingsTable>;
export type ComponentRow = Selectable<ComponentsTable>;
export type RepoStatusRow = Selectable<RepoStatusTable>;
export type RefRow = Selectable<RefsTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type AdminPinRow = Selectable<AdminPinsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type ForgeDeliveryRow = Selectable<ForgeDeliveriesTable>;

/** A sync URL (SERVICE_ADVISORY_SOURCES) and how its last fetch went; times are UTC ISO text. */
export interface AdvisorySourcesTable {
  url: string;
  etag: string | null;
  last_modified: string | null;
  /** The last attempt, whatever came of it. */
  checked_at: string | null;
  /** The last import of a fresh copy (a 200 that could be read). */
  synced_at: string | null;
  last_error: string | null;
  added: Generated<number>;
  updated: Generated<number>;
  withdrawn: Generated<number>;
  unchanged: Generated<number>;
  rejected: Generated<number>;
  lease_until: string | null;
  lease_token: string | null;
}
export type SuppressionRow = Selectable<SuppressionsTable>;
