/**
 * Table types for Kysely. Conventions, the same on SQLite and PostgreSQL:
 * ids are UUIDv7 strings; timestamps are ISO 8601 UTC strings (timestamptz on PostgreSQL, parsed
 * back to ISO strings by the pg driver setup); booleans are 0/1 integers; lists are JSON text.
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

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

export interface OrgsTable {
  id: string;
  name: string;
  name_key: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: string;
  created_at: string;
}

export interface ReposTable {
  id: string;
  org_id: string;
  name: string;
  name_key: string;
  url: string | null;
  default_branch: string | null;
  created_at: string;
  updated_at: string;
}

export interface TeamsTable {
  id: string;
  org_id: string;
  name: string;
  name_key: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
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
  ref: string | null;
  tools: string | null;
  error: string | null;
  created_by: string | null;
  api_key_id: string | null;
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
}

export interface UploadContentsTable {
  upload_id: string;
  content: Buffer;
}

export interface AnalysesTable {
  id: string;
  repository_id: string;
  tool: string;
  tool_version: string | null;
  category: string;
  format: string;
  last_upload_id: string;
  completed_at: string;
  open_critical: number;
  open_high: number;
  open_medium: number;
  open_low: number;
  open_info: number;
  components: number;
  fixed_total: number;
}

export interface FindingsTable {
  id: string;
  repository_id: string;
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
}

export interface RepoStatusTable {
  repository_id: string;
  state: string;
  last_upload_at: string | null;
  last_completed_at: string | null;
  open_critical: number;
  open_high: number;
  open_medium: number;
  open_low: number;
  open_info: number;
  components: number;
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

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  orgs: OrgsTable;
  memberships: MembershipsTable;
  repos: ReposTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  uploads: UploadsTable;
  upload_contents: UploadContentsTable;
  analyses: AnalysesTable;
  findings: FindingsTable;
  components: ComponentsTable;
  repo_status: RepoStatusTable;
  audit_events: AuditEventsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type OrgRow = Selectable<OrgsTable>;
export type RepoRow = Selectable<ReposTable>;
export type TeamRow = Selectable<TeamsTable>;
export type UploadRow = Selectable<UploadsTable>;
export type UploadUpdate = Updateable<UploadsTable>;
export type AnalysisRow = Selectable<AnalysesTable>;
export type FindingRow = Selectable<FindingsTable>;
export type ComponentRow = Selectable<ComponentsTable>;
export type RepoStatusRow = Selectable<RepoStatusTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
