import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { pageInfo } from '../../api/pagination';
import { queryKeys, type AuditFilters } from '../../api/query-keys';

const PER_PAGE = 50;

const queryOf = (filters: AuditFilters) => ({
  page: filters.page,
  per_page: PER_PAGE,
  ...(filters.action ? { action: filters.action } : {}),
  ...(filters.actor ? { actor: filters.actor } : {}),
});

/** An organization's audit log (its owners and site administrators may read it). */
export function useOrgAudit(orgId: string, filters: AuditFilters) {
  return useQuery({
    queryKey: queryKeys.orgAudit(orgId, filters),
    queryFn: async ({ signal }) => {
      const { data, response } = await call(api.GET('/api/v1/orgs/{id}/audit', { params: { path: { id: orgId }, query: queryOf(filters) }, signal }));
      return { rows: data, info: pageInfo(response, PER_PAGE) };
    },
    placeholderData: (previous) => previous,
  });
}

/** The whole site's audit log (site administrators). */
export function useSiteAudit(filters: AuditFilters, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.siteAudit(filters),
    queryFn: async ({ signal }) => {
      const { data, response } = await call(api.GET('/api/v1/audit', { params: { query: queryOf(filters) }, signal }));
      return { rows: data, info: pageInfo(response, PER_PAGE) };
    },
    enabled,
    placeholderData: (previous) => previous,
  });
}
