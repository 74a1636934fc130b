import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient, type Org, type Repo, type Team } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';

/**
 * Every endpoint of orgs, repos (and their analyses), teams and members, called by every kind of caller. A session or
 * key of: a stranger (signed in, not in the org), a member, an owner, a site administrator (not in
 * the org); keys with the write scope, the read scope, and narrowed (write) to another org.
 *
 * The org's base_role is "none": its repositories are held through teams. The member's team holds
 * "triage" on every repository the matrix touches (what base_role "read" gives every member, so the
 * member's column reads as it always has); three more members (TEAM_CALLERS) hold none, "read" and
 * "admin" through teams of their own.
 */
const CALLERS = [
  'nobody', 'stranger', 'member', 'owner', 'admin',
  'stranger key:write', 'stranger key:read', 'stranger key:narrowed',
  'member key:write', 'member key:read', 'member key:narrowed',
  'owner key:write', 'owner key:read', 'owner key:narrowed',
  'admin key:write', 'admin key:read', 'admin key:narrowed',
] as const;
/** Members (sessions) of the base_role "none" org: no team; a team holding "read"; a team holding "admin". */
const TEAM_CALLERS = ['unteamed', 'team reader', 'team admin'] as const;
type Caller = (typeof CALLERS)[number] | (typeof TEAM_CALLERS)[number];

/**
 * What an endpoint needs: any caller, one allowed to create orgs, an org reader, an org manager, or
 * an owner reading what only owners see (webhooks), or a site administrator changing what belongs
 * to the whole site (advisory imports, the site's audit log): a key narrowed to some orgs is refused
 * even its administrator's, since these reach every org.
 */
type Rule = 'signed-in' | 'create-org' | 'read' | 'manage' | 'owner-read' | 'site-admin-write' | 'site-admin-read' | 'triage' | 'manage-session';

const OK = 0; // the endpoint's own success status
// 404: the org is not visible to the caller (not a member, or the key is narrowed elsewhere).
// 403: visible but not allowed (a member managing), or a read-scope key on a write.
// Narrowed keys may not create orgs (the new org would be outside the key).
const MATRIX: Record<Rule, number[]> = {
  //            nobody stranger member owner admin | stranger key   | member key     | owner key      | admin key
  //                                               | write read narr| write read narr| write read narr| write read narr
  'signed-in':  [401,  OK,      OK,    OK,   OK,     OK,   OK,  OK,   OK,   OK,  OK,   OK,   OK,  OK,   OK,   OK,  OK],
  'create-org': [401,  OK,      OK,    OK,   OK,     OK,   403, 403,  OK,   403, 403,  OK,   403, 403,  OK,   403, 403],
  read:         [401,  404,     OK,    OK,   OK,     404,  404, 404,  OK,   OK,  404,  OK,   OK,  404,  OK,   OK,  404],
  manage:       [401,  404,     403,   OK,   OK,     404,  403, 404,  403,  403, 404,  OK,   403, 404,  OK,   403, 404],
  'owner-read': [401,  404,     403,   OK,   OK,     404,  404, 404,  403,  403, 404,  OK,   OK,  404,  OK,   OK,  404],
  'site-admin-write': [401, 403, 403,  403,  OK,     403,  403, 403,  403,  403, 403,  403,  403, 403,  OK,   403, 403],
  'site-admin-read': [401,  403,     403,   403,  OK,     403,  403, 403,  403,  403, 403,  403,  403, 403,  OK,   OK,  403],
  triage:       [401,  404,     OK,    OK,   OK,     404,  403, 404,  OK,   403, 404,  OK,   403, 404,  OK,   403, 404],
  // Owners in a browser session only (minting a SCIM token): any API key is refused before the org is looked at.
  'manage-session': [401, 404,   403,   OK,   OK,     403,  403, 403,  403,  403, 403,  403,  403, 403,  403,  403, 403],
};

interface Fixture {
  org: Org;
  repo: Repo;
  team: Team;
  webhook: { id: string };
  /** A finding of the shared repository. */
  finding: { id: string };
  /** A component of the shared repository's SBOM. */
  component: { id: string };
  /** Things some requests consume (a deleted repo cannot be deleted again): made fresh per call. */
  fresh: {
    org(): Promise<Org>;
    repo(): Promise<Repo>;
    team(): Promise<Team>;
    /** A team of nobody holding "read" on the repository. */
    teamHolding(repoId: string): Promise<Team>;
    signedInUser(): Promise<string>;
    /** The shared org, linked to a forge owner (as if PUT /orgs/{id}/forge had been done). */
    forgeLinked(): Promise<string>;
    member(): Promise<string>;
    /** An analysis of the shared repository (one upload, processed). */
    analysis(): Promise<string>;
    webhook(): Promise<{ id: string }>;
    /** A suppression rule of the shared org that matches nothing. */
    suppression(): Promise<{ id: string }>;
    /** A finished delivery of the shared webhook, which may be sent again. */
    finishedDelivery(): Promise<string>;
    /** A CI trust rule of the shared org. */
    ciRule(): Promise<{ id: string }>;
    /** A finished forge delivery (a verdict) of the shared repository. */
    finishedForgeDelivery(): Promise<string>;
  };
  unique(): string;
}

interface Endpoint {
  route: string;
  rule: Rule;
  ok: number;
  /**
   * The endpoint acts on one repository: "read" (its readers), "admin" (its admins: a team's admin
   * role is enough) or "owner" (the org's owners, but a member who holds no role on it gets 404).
   */
  repo?: 'read' | 'admin' | 'owner';
  request(f: Fixture): Promise<InjectOptions>;
}

/** What the TEAM_CALLERS get: the org is visible to them all; a repository only to those who hold it. */
function teamCallerExpects(caller: (typeof TEAM_CALLERS)[number], endpoint: Endpoint): number {
  const { rule, repo } = endpoint;
  if (rule === 'signed-in' || rule === 'create-org') return OK;
  if (rule === 'site-admin-read' || rule === 'site-admin-write') return 403;
  if (repo && caller === 'unteamed') return 404;
  if (rule === 'read') return OK;
  if (rule === 'triage') return caller === 'team admin' ? OK : 403;
  if (rule === 'owner-read') return 403;
  return repo === 'admin' && caller === 'team admin' ? OK : 403;
}

const ENDPOINTS: Endpoint[] = [
  { route: 'GET /orgs', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/orgs' }) },
  { route: 'POST /orgs', rule: 'create-org', ok: 201, request: async (f) => ({ method: 'POST', url: '/api/v1/orgs', payload: { name: f.unique() } }) },
  { route: 'GET /orgs/{id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}` }) },
  { route: 'PUT /orgs/{id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}`, payload: { description: f.unique() } }) },
  { route: 'DELETE /orgs/{id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${(await f.fresh.org()).id}` }) },
  { route: 'GET /orgs/{org_id}/repos', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/repos` }) },
  { route: 'POST /orgs/{org_id}/repos', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/repos`, payload: { name: f.unique() } }) },
  { route: 'GET /repos/{id}', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}` }) },
  { route: 'DELETE /repos/{id}', repo: 'owner', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/repos/${(await f.fresh.repo()).id}` }) },
  { route: 'PUT /repos/{id}', repo: 'admin', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/repos/${f.repo.id}`, payload: { pr_feedback: { checks: true, comment: 'on_change' } } }) },
  { route: 'PUT /orgs/{id} (pr_feedback)', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}`, payload: { pr_feedback: { comment: 'on_change' } } }) },
  { route: 'GET /repos/{id}/forge-deliveries', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/forge-deliveries` }) },
  { route: 'POST /repos/{id}/forge-deliveries/{delivery_id}/redeliver', repo: 'admin', rule: 'manage', ok: 202, request: async (f) => ({ method: 'POST', url: `/api/v1/repos/${f.repo.id}/forge-deliveries/${await f.fresh.finishedForgeDelivery()}/redeliver` }) },
  { route: 'GET /orgs/{org_id}/teams', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/teams` }) },
  { route: 'POST /orgs/{org_id}/teams', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/teams`, payload: { name: f.unique() } }) },
  { route: 'GET /teams/{id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/teams/${f.team.id}` }) },
  { route: 'PUT /teams/{id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/teams/${f.team.id}`, payload: { description: f.unique() } }) },
  { route: 'DELETE /teams/{id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/teams/${(await f.fresh.team()).id}` }) },
  { route: 'GET /teams/{id}/repos', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/teams/${f.team.id}/repos` }) },
  { route: 'PUT /teams/{id}/repos/{repo_id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/teams/${(await f.fresh.team()).id}/repos/${f.repo.id}`, payload: { role: 'read' } }) },
  { route: 'DELETE /teams/{id}/repos/{repo_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/teams/${(await f.fresh.teamHolding(f.repo.id)).id}/repos/${f.repo.id}` }) },
  { route: 'GET /orgs/{id}/members', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/members` }) },
  { route: 'GET /orgs/{id}/members/{user_id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/members/${f.team.members[0]}` }) },
  { route: 'PUT /orgs/{id}/members/{user_id}', rule: 'manage', ok: 201, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/members/${await f.fresh.signedInUser()}`, payload: { role: 'member' } }) },
  { route: 'POST /orgs/{id}/scim-token', rule: 'manage-session', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/scim-token` }) },
  { route: 'DELETE /orgs/{id}/members/{user_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/members/${await f.fresh.member()}` }) },
  { route: 'GET /repos/{id}/refs', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/refs` }) },
  { route: 'GET /repos/{id}/status?ref=', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/status?ref=refs/heads/main` }) },
  { route: 'GET /repos/{id}/findings?ref=', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/findings?ref=main` }) },
  { route: 'GET /repos/{id}/analyses', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/analyses` }) },
  { route: 'DELETE /repos/{id}/analyses/{analysis_id}', repo: 'admin', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/repos/${f.repo.id}/analyses/${await f.fresh.analysis()}` }) },
  { route: 'GET /repos/lookup', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/lookup?org=${encodeURIComponent(f.org.name)}&name=${f.repo.name}` }) },
  { route: 'GET /orgs/{id}/policy', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/policy` }) },
  { route: 'PUT /orgs/{id}/policy', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/policy`, payload: { fail_on_new: 'critical' } }) },
  { route: 'GET /repos/{id}/policy', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/policy` }) },
  { route: 'PUT /repos/{id}/policy', repo: 'admin', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/repos/${f.repo.id}/policy`, payload: { inherit: true } }) },
  { route: 'GET /repos/{id}/gate', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/gate` }) },
  { route: 'POST /repos/{id}/badge-token', repo: 'admin', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/repos/${f.repo.id}/badge-token` }) },
  { route: 'GET /orgs/{id}/sla', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/sla` }) },
  { route: 'PUT /orgs/{id}/sla', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/sla`, payload: { critical: 7 } }) },
  { route: 'GET /orgs/{id}/metrics', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/metrics?interval=week` }) },
  { route: 'GET /orgs/{id}/metrics?team=', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/metrics?team=${f.team.id}` }) },
  { route: 'GET /orgs/{id}/metrics/summary', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/metrics/summary` }) },
  { route: 'GET /repos/{id}/metrics', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/metrics` }) },
  { route: 'GET /repos/{id}/metrics/summary', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/metrics/summary?window=30d` }) },
  { route: 'GET /orgs/{id}/webhooks', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/webhooks` }) },
  { route: 'POST /orgs/{id}/webhooks', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/webhooks`, payload: { url: 'https://93.184.215.14/in', secret: 'matrix-secret', events: ['upload.completed'] } }) },
  { route: 'GET /orgs/{id}/webhooks/{webhook_id}', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}` }) },
  { route: 'PUT /orgs/{id}/webhooks/{webhook_id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}`, payload: { min_severity: 'high' } }) },
  { route: 'DELETE /orgs/{id}/webhooks/{webhook_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/webhooks/${(await f.fresh.webhook()).id}` }) },
  { route: 'GET /orgs/{id}/webhooks/{webhook_id}/deliveries', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}/deliveries` }) },
  { route: 'POST /orgs/{id}/webhooks/{webhook_id}/ping', rule: 'manage', ok: 202, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}/ping` }) },
  { route: 'POST /orgs/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', rule: 'manage', ok: 202, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}/deliveries/${await f.fresh.finishedDelivery()}/redeliver` }) },
  { route: 'GET /advisories', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories?q=GHSA' }) },
  { route: 'GET /components', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/components?ecosystem=npm' }) },
  { route: 'GET /advisories/top', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories/top' }) },
  { route: 'GET /advisories/sources', rule: 'site-admin-read', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories/sources' }) },
  { route: 'POST /advisories/import', rule: 'site-admin-write', ok: 200, request: async () => ({ method: 'POST', url: '/api/v1/advisories/import', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ id: 'GHSA-matr-ixxx-test', modified: '2024-01-01T00:00:00Z', affected: [] }) }) },
  // After the import above, which stores the record it reads.
  { route: 'GET /advisories/{id}', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories/GHSA-matr-ixxx-test' }) },
  { route: 'GET /findings/{id}', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/findings/${f.finding.id}` }) },
  { route: 'GET /findings/{id}/history', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/findings/${f.finding.id}/history` }) },
  { route: 'GET /repos/{id}/vex', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/vex?format=openvex` }) },
  { route: 'PATCH /findings/{id}', repo: 'read', rule: 'triage', ok: 200, request: async (f) => ({ method: 'PATCH', url: `/api/v1/findings/${f.finding.id}`, payload: { state: 'dismissed', reason: 'wont_fix' } }) },
  { route: 'POST /repos/{id}/findings/triage', repo: 'read', rule: 'triage', ok: 200, request: async (f) => ({ method: 'POST', url: `/api/v1/repos/${f.repo.id}/findings/triage`, payload: { ids: [f.finding.id], triage: { state: 'dismissed', reason: 'wont_fix' } } }) },
  { route: 'GET /orgs/{id}/suppressions', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/suppressions` }) },
  { route: 'POST /orgs/{id}/suppressions', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/suppressions`, payload: { rule_id: f.unique(), reason: 'wont_fix' } }) },
  { route: 'GET /orgs/{id}/suppressions/{suppression_id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/suppressions/${(await f.fresh.suppression()).id}` }) },
  { route: 'DELETE /orgs/{id}/suppressions/{suppression_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/suppressions/${(await f.fresh.suppression()).id}` }) },
  { route: 'GET /orgs/{id}/ci-trust', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/ci-trust` }) },
  { route: 'POST /orgs/{id}/ci-trust', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/ci-trust`, payload: { issuer: 'github', repository: `acme/${f.unique()}`, target_repo_id: f.repo.id } }) },
  { route: 'DELETE /orgs/{id}/ci-trust/{rule_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/ci-trust/${(await f.fresh.ciRule()).id}` }) },
  { route: 'GET /orgs/{id}/ci-trust/default-rule', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/ci-trust/default-rule` }) },
  { route: 'PUT /orgs/{id}/ci-trust/default-rule', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/ci-trust/default-rule`, payload: { enabled: true } }) },
  { route: 'GET /orgs/{id}/audit', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/audit` }) },
  { route: 'GET /audit', rule: 'site-admin-read', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/audit' }) },
  { route: 'GET /repos/{id}/components/{component_id}/paths', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/components/${f.component.id}/paths` }) },
  { route: 'GET /repos/{id}/components/diff', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/components/diff?base=main&head=main` }) },
  { route: 'GET /repos/{id}/remediation', repo: 'read', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/remediation` }) },
  { route: 'GET /orgs/{id}/remediation', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/remediation` }) },
  { route: 'GET /orgs/{id}/forge', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${await f.fresh.forgeLinked()}/forge` }) },
  { route: 'POST /orgs/{id}/forge/sync', rule: 'manage', ok: 202, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${await f.fresh.forgeLinked()}/forge/sync` }) },
  { route: 'DELETE /orgs/{id}/forge', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${await f.fresh.forgeLinked()}/forge` }) },
  { route: 'GET /users', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/users?q=o' }) },
];

describe.each(DB_KINDS)('authorization on %s', (kind) => {
  let t: TestApp;
  let fixture: Fixture;
  const credentials = new Map<Caller, Record<string, string>>();

  beforeAll(async () => {
    // A CI issuer for the trust rule endpoints (configuration only: nothing is fetched here).
    t = await createTestApp(kind, { SERVICE_CI_ISSUERS: JSON.stringify([{ id: 'github', type: 'github-actions', issuer: 'https://token.actions.githubusercontent.com' }]) });
    const api = orgClient(t);
    const [stranger, member, owner, admin] = await Promise.all(['stranger', 'member', 'owner', 'admin'].map((login) => t.user(login, { admin: login === 'admin' })));
    const [unteamed, teamReader, teamAdmin] = await Promise.all(['unteamed', 'team-reader', 'team-admin'].map((login) => t.user(login)));
    let counter = 0;
    const unique = () => `thing-${++counter}`;

    // The narrowed keys' org: every caller but the admin belongs to it, so each may narrow a key to it.
    const elsewhere = await api.createOrg(stranger!.cookie, 'Elsewhere');
    for (const user of [member!, owner!]) await api.setMember(stranger!.cookie, elsewhere.id, user.user.id, 'member');

    const makeOrg = async () => {
      const org = await api.createOrg(owner!.cookie, unique());
      for (const user of [member!, unteamed!, teamReader!, teamAdmin!]) await api.setMember(owner!.cookie, org.id, user.user.id, 'member');
      return org;
    };
    const org = await makeOrg();
    const baseRole = await t.request({ method: 'PUT', url: `/api/v1/orgs/${org.id}`, headers: { cookie: owner!.cookie }, payload: { base_role: 'none' } });
    if (baseRole.statusCode !== 200) throw new Error(`setting base_role failed: ${baseRole.statusCode} ${baseRole.body}`);
    const sharedTeam = await api.createTeam(owner!.cookie, org.id, { name: 'shared-team', members: [member!.user.id] });
    const readers = await api.createTeam(owner!.cookie, org.id, { name: 'readers', members: [teamReader!.user.id] });
    const admins = await api.createTeam(owner!.cookie, org.id, { name: 'admins', members: [teamAdmin!.user.id] });
    const grant = async (teamId: string, repoId: string, role: string) => {
      const res = await t.request({ method: 'PUT', url: `/api/v1/teams/${teamId}/repos/${repoId}`, headers: { cookie: owner!.cookie }, payload: { role } });
      if (res.statusCode !== 200) throw new Error(`granting failed: ${res.statusCode} ${res.body}`);
    };
    /** A repository held by the teams as the header says. */
    const makeRepo = async (name: string) => {
      const repo = await api.createRepo(owner!.cookie, org.id, { name });
      await grant(sharedTeam.id, repo.id, 'triage');
      await grant(readers.id, repo.id, 'read');
      await grant(admins.id, repo.id, 'admin');
      return repo;
    };
    const sharedRepo = await makeRepo('shared-repo');
    const makeWebhook = async () => {
      const res = await t.request({
        method: 'POST', url: `/api/v1/orgs/${org.id}/webhooks`, headers: { cookie: owner!.cookie },
        payload: { url: 'https://93.184.215.14/in', secret: 'matrix-secret', events: ['upload.completed'] },
      });
      if (res.statusCode !== 201) throw new Error(`creating a webhook failed: ${res.statusCode} ${res.body}`);
      return res.json<{ id: string }>();
    };
    const webhook = await makeWebhook();
    const findingUpload = await t.request({
      method: 'POST', url: `/api/v1/repos/${sharedRepo.id}/upload?category=matrix`,
      headers: { cookie: owner!.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r', file: 'a.js' }]),
    });
    if (findingUpload.statusCode !== 202) throw new Error(`upload failed: ${findingUpload.statusCode} ${findingUpload.body}`);
    await t.drain();
    const finding = (await t.request({ url: `/api/v1/repos/${sharedRepo.id}/findings`, headers: { cookie: owner!.cookie } })).json<{ id: string }[]>()[0]!;
    // A CycloneDX 1.6 SBOM with a graph (https://cyclonedx.org/docs/1.6/json/#dependencies): app -> left-pad.
    const sbomUpload = await t.request({
      method: 'POST', url: `/api/v1/repos/${sharedRepo.id}/upload?category=matrix-sbom`, headers: { cookie: owner!.cookie, 'content-type': 'application/vnd.cyclonedx+json' },
      payload: JSON.stringify({
        bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'app', 'bom-ref': 'app' } },
        components: [{ type: 'library', name: 'left-pad', version: '1.3.0', 'bom-ref': 'left-pad@1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }],
        dependencies: [{ ref: 'app', dependsOn: ['left-pad@1.3.0'] }],
      }),
    });
    if (sbomUpload.statusCode !== 202) throw new Error(`upload failed: ${sbomUpload.statusCode} ${sbomUpload.body}`);
    await t.drain();
    const component = (await t.request({ url: `/api/v1/repos/${sharedRepo.id}/components`, headers: { cookie: owner!.cookie } })).json<{ id: string }[]>()[0]!;
    fixture = {
      org,
      repo: sharedRepo,
      team: sharedTeam,
      webhook,
      finding,
      component,
      fresh: {
        webhook: makeWebhook,
        suppression: async () => {
          const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${org.id}/suppressions`, headers: { cookie: owner!.cookie }, payload: { rule_id: unique(), reason: 'wont_fix' } });
          if (res.statusCode !== 201) throw new Error(`creating a suppression failed: ${res.statusCode} ${res.body}`);
          return res.json<{ id: string }>();
        },
        ciRule: async () => {
          const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${org.id}/ci-trust`, headers: { cookie: owner!.cookie }, payload: { issuer: 'github', repository: `acme/${unique()}` } });
          if (res.statusCode !== 201) throw new Error(`creating a trust rule failed: ${res.statusCode} ${res.body}`);
          return res.json<{ id: string }>();
        },
        finishedDelivery: async () => {
          // Its ping, as if it had been attempted and given up (nothing is sent in this test).
          const row = await t.db.kysely.updateTable('webhook_deliveries').set({ status: 'failed' })
            .where('webhook_id', '=', webhook.id).returning('id').executeTakeFirstOrThrow();
          return row.id;
        },
        finishedForgeDelivery: async () => {
          const id = unique();
          await t.db.kysely.insertInto('forge_deliveries').values({
            id, repository_id: sharedRepo.id, upload_id: null, kind: 'check_run', thread: 'main\n', payload: JSON.stringify({ state: 'completed' }), status: 'failed',
            external_id: null, external_state: null, next_attempt_at: null, lease_until: null, last_attempt_at: null, last_status_code: 502,
            last_duration_ms: 3, last_response_body: null, last_error: 'the forge answered HTTP 502', created_at: new Date().toISOString(), completed_at: new Date().toISOString(),
          }).execute();
          return id;
        },
        org: makeOrg,
        repo: () => makeRepo(unique()),
        team: () => api.createTeam(owner!.cookie, org.id, { name: unique() }),
        teamHolding: async (repoId) => {
          const team = await api.createTeam(owner!.cookie, org.id, { name: unique() });
          await grant(team.id, repoId, 'read');
          return team;
        },
        signedInUser: async () => (await t.user(unique())).user.id,
        forgeLinked: async () => {
          // PUT itself needs a forge that says the caller administers the owner: test/forge/ covers it.
          await t.db.kysely.insertInto('forge_links').values({
            org_id: org.id, provider_id: 'gh', owner: 'matrix', owner_key: 'matrix', linked_by: null, created_at: new Date().toISOString(),
            last_synced_at: null, last_error: null, sync_due_at: null, sync_parts: null, lease_until: null,
          }).onConflict((oc) => oc.column('org_id').doNothing()).execute();
          return org.id;
        },
        member: async () => {
          const { user } = await t.user(unique());
          await api.setMember(owner!.cookie, org.id, user.id, 'member');
          return user.id;
        },
        analysis: async () => {
          const category = unique();
          const upload = await t.request({
            method: 'POST', url: `/api/v1/repos/${sharedRepo.id}/upload?category=${category}`,
            headers: { cookie: owner!.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r', file: 'a.js' }]),
          });
          if (upload.statusCode !== 202) throw new Error(`upload failed: ${upload.statusCode} ${upload.body}`);
          await t.drain();
          const analyses = (await t.request({ url: `/api/v1/repos/${sharedRepo.id}/analyses?per_page=100`, headers: { cookie: owner!.cookie } })).json<{ id: string; category: string }[]>();
          return analyses.find((a) => a.category === category)!.id;
        },
      },
      unique,
    };

    credentials.set('nobody', {});
    credentials.set('unteamed', { cookie: unteamed!.cookie });
    credentials.set('team reader', { cookie: teamReader!.cookie });
    credentials.set('team admin', { cookie: teamAdmin!.cookie });
    const people = { stranger: stranger!, member: member!, owner: owner!, admin: admin! };
    for (const [name, person] of Object.entries(people)) {
      credentials.set(name as Caller, { cookie: person.cookie });
      const bearer = async (body: Record<string, unknown>) => ({ authorization: `Bearer ${await t.apiKey(person.cookie, body)}` });
      credentials.set(`${name} key:write` as Caller, await bearer({ scopes: ['write'] }));
      credentials.set(`${name} key:read` as Caller, await bearer({ scopes: ['read'] }));
      credentials.set(`${name} key:narrowed` as Caller, await bearer({ scopes: ['write'], org_ids: [elsewhere.id] }));
    }
  });
  afterAll(() => t.close());

  // First, before the matrix has callers create orgs of their own.
  it('lists each caller the orgs they may see', async () => {
    const ids = async (caller: Caller) =>
      (await t.request({ url: '/api/v1/orgs?per_page=100', headers: credentials.get(caller) })).json<Org[]>().map((o) => o.name);
    expect(await ids('stranger')).toEqual(['Elsewhere']);
    expect(await ids('member')).toContain(fixture.org.name);
    expect(await ids('member key:narrowed')).toEqual(['Elsewhere']);
    expect(await ids('admin')).toContain(fixture.org.name);
    expect(await ids('admin key:narrowed')).toEqual(['Elsewhere']);
  });

  it.each(ENDPOINTS.map((e) => [e.route, e] as const))('%s answers each caller as the policy says', async (_route, endpoint) => {
    const expected: Record<string, number> = {};
    const actual: Record<string, number> = {};
    for (const [i, caller] of CALLERS.entries()) {
      const want = MATRIX[endpoint.rule][i]!;
      expected[caller] = want === OK ? endpoint.ok : want;
      const request = await endpoint.request(fixture);
      const res = await t.request({ ...request, headers: { ...request.headers, ...credentials.get(caller) } });
      actual[caller] = res.statusCode;
    }
    for (const caller of TEAM_CALLERS) {
      const want = teamCallerExpects(caller, endpoint);
      expected[caller] = want === OK ? endpoint.ok : want;
      const request = await endpoint.request(fixture);
      const res = await t.request({ ...request, headers: { ...request.headers, ...credentials.get(caller) } });
      actual[caller] = res.statusCode;
    }
    expect(actual).toEqual(expected);
  });

  it('answers an org, repo or team the caller cannot see exactly as one that does not exist', async () => {
    const missing = '0190a3b2-0000-7000-8000-000000000000';
    const pairs: [string, string][] = [
      [`/api/v1/orgs/${fixture.org.id}`, `/api/v1/orgs/${missing}`],
      [`/api/v1/orgs/${fixture.org.id}/repos`, `/api/v1/orgs/${missing}/repos`],
      [`/api/v1/orgs/${fixture.org.id}/members`, `/api/v1/orgs/${missing}/members`],
      [`/api/v1/orgs/${fixture.org.id}/webhooks/${fixture.webhook.id}`, `/api/v1/orgs/${missing}/webhooks/${fixture.webhook.id}`],
      [`/api/v1/repos/${fixture.repo.id}`, `/api/v1/repos/${missing}`],
      [`/api/v1/repos/${fixture.repo.id}/refs`, `/api/v1/repos/${missing}/refs`],
      [`/api/v1/repos/${fixture.repo.id}/status?ref=pr/1`, `/api/v1/repos/${missing}/status?ref=pr/1`],
      [`/api/v1/repos/${fixture.repo.id}/analyses`, `/api/v1/repos/${missing}/analyses`],
      [`/api/v1/repos/lookup?org=${encodeURIComponent(fixture.org.name)}&name=${fixture.repo.name}`, `/api/v1/repos/lookup?org=${encodeURIComponent(fixture.org.name)}&name=no-such-repo`],
      [`/api/v1/repos/${fixture.repo.id}/gate`, `/api/v1/repos/${missing}/gate`],
      [`/api/v1/findings/${fixture.finding.id}`, `/api/v1/findings/${missing}`],
      [`/api/v1/orgs/${fixture.org.id}/policy`, `/api/v1/orgs/${missing}/policy`],
      [`/api/v1/orgs/${fixture.org.id}/metrics`, `/api/v1/orgs/${missing}/metrics`],
      [`/api/v1/orgs/${fixture.org.id}/metrics/summary`, `/api/v1/orgs/${missing}/metrics/summary`],
      [`/api/v1/repos/${fixture.repo.id}/metrics`, `/api/v1/repos/${missing}/metrics`],
      [`/api/v1/orgs/${fixture.org.id}/sla`, `/api/v1/orgs/${missing}/sla`],
    ];
    for (const [hidden, absent] of pairs) {
      const seen = await t.request({ url: hidden, headers: credentials.get('stranger') });
      const none = await t.request({ url: absent, headers: credentials.get('owner') });
      expect(seen.statusCode).toBe(404);
      expect(seen.json()).toEqual(none.json());
      // A member of the org who holds no role on the repository learns no more than a stranger.
      if (hidden.includes('/repos/') || hidden.includes('/findings/')) {
        const unheld = await t.request({ url: hidden, headers: credentials.get('unteamed') });
        expect(unheld.statusCode, hidden).toBe(404);
        expect(unheld.json()).toEqual(none.json());
      }
    }
    const hiddenTeam = await t.request({ method: 'PUT', url: `/api/v1/teams/${fixture.team.id}`, headers: credentials.get('stranger'), payload: { name: 'x' } });
    const absentTeam = await t.request({ method: 'PUT', url: `/api/v1/teams/${missing}`, headers: credentials.get('owner'), payload: { name: 'x' } });
    expect(hiddenTeam.json()).toEqual(absentTeam.json());
  });
});

/**
 * The SAML endpoints need no caller: the IdP's signature says who signs in, so every caller is
 * answered alike (an API key's scope still applies to a POST, as everywhere).
 */
describe.each(DB_KINDS)('SAML endpoints, for every caller, on %s', (kind) => {
  let t: TestApp;
  const callers = new Map<string, Record<string, string>>();

  beforeAll(async () => {
    const metadata = fileURLToPath(new URL('../fixtures/saml/idp-metadata.xml', import.meta.url));
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify([{ id: 'corp', type: 'saml', name: 'Corp', idp_metadata_file: metadata }]) });
    const [user, admin] = [await t.user('someone'), await t.user('admin', { admin: true })];
    callers.set('nobody', {});
    callers.set('session', { cookie: user.cookie });
    callers.set('admin session', { cookie: admin.cookie });
    callers.set('key:write', { authorization: `Bearer ${await t.apiKey(user.cookie, { scopes: ['write'] })}` });
    callers.set('key:read', { authorization: `Bearer ${await t.apiKey(user.cookie, { scopes: ['read'] })}` });
  });
  afterAll(() => t.close());

  it('serves the service provider metadata to anyone, and refuses an unsigned Response and an unknown completion ticket from anyone', async () => {
    // saml-core-2.0-os 3.3.3: a Response with a Success status and an unsigned assertion.
    const unsigned = Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">'
      + '<saml:Issuer>https://idp.example/saml/idp</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
      + '<saml:Assertion ID="_a1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://idp.example/saml/idp</saml:Issuer>'
      + '<saml:Subject><saml:NameID>admin</saml:NameID></saml:Subject></saml:Assertion></samlp:Response>').toString('base64');
    const metadata: Record<string, number> = {};
    const acs: Record<string, number> = {};
    const complete: Record<string, number> = {};
    for (const [name, headers] of callers) {
      // A ticket of the form the ACS makes (32 random bytes, base64url) that it never made.
      complete[name] = (await t.request({ url: `/auth/saml/corp/complete?ticket=${'A'.repeat(43)}`, headers })).statusCode;
      metadata[name] = (await t.request({ url: '/auth/saml/corp/metadata', headers })).statusCode;
      acs[name] = (await t.request({
        method: 'POST', url: '/auth/saml/corp/acs', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://idp.example' },
        payload: new URLSearchParams({ SAMLResponse: unsigned }).toString(),
      })).statusCode;
    }
    expect(metadata).toEqual({ nobody: 200, session: 200, 'admin session': 200, 'key:write': 200, 'key:read': 200 });
    expect(acs).toEqual({ nobody: 401, session: 401, 'admin session': 401, 'key:write': 401, 'key:read': 403 });
    expect(complete).toEqual({ nobody: 401, session: 401, 'admin session': 401, 'key:write': 401, 'key:read': 401 });
  });
});
