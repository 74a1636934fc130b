import { useQueries, useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/query-keys';
import type { CurrentUser } from '../../api/types';
import { isInProgress, isInventoryOnly } from '../../lib/scan-state';
import { statusQuery } from '../repos/api';
import { loadOverview, mayBeInventoryOnly, type Overview } from './overview';

export function useOverview(orgs: CurrentUser['orgs']) {
  return useQuery({
    queryKey: queryKeys.dashboardOf(orgs.map((o) => o.id)),
    queryFn: ({ signal }) => loadOverview(orgs, signal),
    // While any upload is in progress its result is about to change the picture.
    refetchInterval: (query) => (query.state.data?.repos.some((r) => isInProgress(r.status.state)) ? 2000 : 30_000),
  });
}

/**
 * Which of the repositories with nothing open have only an SBOM inventory: undefined while their
 * analyses are being read. The statuses are shared with the repository screens' cache.
 */
export function useInventoryOnly(overview: Overview | undefined): Map<string, boolean | undefined> {
  const candidates = overview?.repos.filter(mayBeInventoryOnly) ?? [];
  const statuses = useQueries({ queries: candidates.map((r) => statusQuery(r.repo.id)) });
  return new Map(candidates.map((r, i) => {
    const status = statuses[i]?.data;
    return [r.repo.id, status ? isInventoryOnly(status) : undefined];
  }));
}
