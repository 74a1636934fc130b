/**
 * Every TanStack Query key the UI uses, in one place. Keys nest (an organization's lists sit under
 * its own key, a repository's results under the repository's), so a mutation invalidates one prefix
 * and every view that depends on it reloads.
 */
import type { Severity } from '../lib/severity';

export interface PageFilters {
  page: number;
  q: string;
}

/** What a repository's results are read for: one ref (a branch, pr/N or tag); '' is the default branch. */
export interface RefFilter {
  ref: string;
}

export interface FindingFilters extends PageFilters, Partial<RefFilter> {
  state: 'open' | 'fixed' | 'dismissed' | 'all';
  severity: Severity | '';
  tool: string;
  /** What one upload changed: the findings it introduced, fixed or reopened (upload ids). */
  introducedIn?: string;
  fixedIn?: string;
  reopenedIn?: string;
  /** A pull request's findings against its base: those it adds (new) or those of the base it no longer has (fixed). */
  vsBase?: 'new' | 'fixed';
}

export interface AuditFilters {
  page: number;
  action: string;
  actor: string;
}

export const queryKeys = {
  me: ['me'] as const,
  providers: ['auth', 'providers'] as const,
  apiKeys: ['apikeys'] as const,
  users: (q: string) => ['users', q] as const,
  dashboard: ['dashboard'] as const,
  dashboardOf: (orgIds: string[]) => ['dashboard', orgIds] as const,

  org: (id: string) => ['orgs', id] as const,
  orgDetail: (id: string) => ['orgs', id, 'detail'] as const,
  orgRepos: (id: string, filters: PageFilters) => ['orgs', id, 'repos', filters] as const,
  orgMembers: (id: string) => ['orgs', id, 'members'] as const,
  orgTeams: (id: string) => ['orgs', id, 'teams'] as const,
  orgAudit: (id: string, filters: AuditFilters) => ['orgs', id, 'audit', filters] as const,
  orgPolicy: (id: string) => ['orgs', id, 'policy'] as const,
  orgSuppressions: (id: string) => ['orgs', id, 'suppressions'] as const,
  orgCiTrust: (id: string) => ['orgs', id, 'ci-trust'] as const,
  orgWebhooks: (id: string) => ['orgs', id, 'webhooks'] as const,
  orgForge: (id: string) => ['orgs', id, 'forge'] as const,
  webhookDeliveries: (orgId: string, hookId: string) => ['orgs', orgId, 'webhooks', hookId, 'deliveries'] as const,
  siteAudit: (filters: AuditFilters) => ['audit', filters] as const,

  /** One finding; its history sits under it, so a triage change reloads both. */
  finding: (id: string) => ['findings', id] as const,
  findingHistory: (id: string) => ['findings', id, 'history'] as const,

  repo: (id: string) => ['repos', id] as const,
  repoDetail: (id: string) => ['repos', id, 'detail'] as const,
  repoStatus: (id: string, ref = '') => ['repos', id, 'status', ref] as const,
  /** Everything an upload changes: uploads, findings, components (not the status that announced it). */
  repoResults: (id: string) => ['repos', id, 'results'] as const,
  repoAnalyses: (id: string) => ['repos', id, 'results', 'analyses'] as const,
  repoUploads: (id: string, ref: string) => ['repos', id, 'results', 'uploads', ref] as const,
  repoRefs: (id: string) => ['repos', id, 'results', 'refs'] as const,
  /** The gate judges the results now, so it is read again with them. */
  repoGate: (id: string) => ['repos', id, 'results', 'gate'] as const,
  repoPolicy: (id: string) => ['repos', id, 'policy'] as const,
  repoFindings: (id: string, filters: FindingFilters) => ['repos', id, 'results', 'findings', filters] as const,
  repoComponents: (id: string, filters: PageFilters & RefFilter) => ['repos', id, 'results', 'components', filters] as const,
  /** The ref's open advisory matches, by purl: the Components tab's marks. */
  repoComponentAdvisories: (id: string, ref: string) => ['repos', id, 'results', 'component-advisories', ref] as const,
  /** A ref's upgrade plan, and the components diff of a pull request: read again with the results. */
  repoRemediation: (id: string, ref: string) => ['repos', id, 'results', 'remediation', ref] as const,
  repoComponentsDiff: (id: string, base: string, head: string) => ['repos', id, 'results', 'components-diff', base, head] as const,
  advisory: (id: string) => ['advisories', id] as const,
  advisoriesTop: ['advisories', 'top'] as const,
  advisorySources: ['advisories', 'sources'] as const,
  upload: (id: string) => ['uploads', id] as const,
};
