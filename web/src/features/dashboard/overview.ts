import { api, call } from '../../api/client';
import type { CurrentUser, Repo, ScanSummary } from '../../api/types';
import { mapLimit } from '../../lib/pool';
import { compareBySeverity, NO_FINDINGS, type SeverityCounts } from '../../lib/severity';

export interface RepoOverview {
  repo: Repo;
  org: CurrentUser['orgs'][number];
  status: ScanSummary;
  counts: SeverityCounts;
}

/** Repositories read per organization for the dashboard; an org with more shows a link to the rest. */
const DASHBOARD_REPOS_PER_ORG = 100;

export interface Overview {
  repos: RepoOverview[];
  /** Organizations with more repositories than the dashboard reads. */
  truncated: { orgId: string; total: number }[];
}

/** Every repository of the user's organizations with its scan status, what needs attention first. */
export async function loadOverview(orgs: CurrentUser['orgs'], signal: AbortSignal): Promise<Overview> {
  const truncated: Overview['truncated'] = [];
  const perOrg = await mapLimit(orgs, 4, async (org) => {
    const { data, response } = await call(api.GET('/api/v1/orgs/{org_id}/repos', {
      params: { path: { org_id: org.id }, query: { per_page: DASHBOARD_REPOS_PER_ORG } },
      signal,
    }));
    const total = Number(response.headers.get('x-total-count') ?? data.length);
    if (total > data.length) truncated.push({ orgId: org.id, total });
    // Each repository carries its scan summary: no request per repository.
    return data.map((repo): RepoOverview => ({ repo, org, status: repo.scan, counts: countsOf(repo.scan) }));
  });
  return { repos: perOrg.flat().sort(byAttention), truncated };
}

export function countsOf(status: Pick<ScanSummary, 'findings'>): SeverityCounts {
  const { critical, high, medium, low, info } = status.findings;
  return { critical, high, medium, low, info };
}

const STATE_RANK: Record<string, number> = { failed: 0, processing: 1, pending: 1, complete: 2, never_scanned: 3 };

/** Most critical first, then high and so on; among equals failed scans first, never scanned last. */
function byAttention(a: RepoOverview, b: RepoOverview): number {
  return compareBySeverity(a.counts, b.counts)
    || (STATE_RANK[a.status.state] ?? 3) - (STATE_RANK[b.status.state] ?? 3)
    || a.repo.name.localeCompare(b.repo.name);
}

export function totals(repos: RepoOverview[]): SeverityCounts {
  const sum = { ...NO_FINDINGS };
  for (const { counts } of repos) {
    for (const key of Object.keys(sum) as (keyof SeverityCounts)[]) sum[key] += counts[key];
  }
  return sum;
}

/** Something to look at: open findings, or a last upload that failed. */
export const needsAttention = (r: RepoOverview): boolean => r.status.findings.open > 0 || r.status.state === 'failed';

/**
 * A repository with nothing open may still be unchecked: if it only ever sent SBOMs, it is an
 * inventory whose components matched no loaded advisory, and no scanner looked at its code. Only the analyses (in its full status)
 * tell, so the dashboard asks for those of the repositories where it matters.
 */
export const mayBeInventoryOnly = (r: RepoOverview): boolean =>
  !needsAttention(r) && r.status.components > 0 && r.status.state !== 'never_scanned';
