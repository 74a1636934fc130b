import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

/** One advisory by its id or an alias, with the caller's repositories it affects. */
export function useAdvisory(id: string) {
  return useQuery({
    queryKey: queryKeys.advisory(id),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/advisories/{id}', { params: { path: { id } }, signal }))).data,
  });
}

/** The sync sources and how each last went (site administrators). */
export function useAdvisorySources() {
  return useQuery({
    queryKey: queryKeys.advisorySources,
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/advisories/sources', { signal }))).data,
  });
}

/** The advisories affecting the most of the caller's repositories, then the most severe. */
export function useTopAdvisories() {
  return useQuery({
    queryKey: queryKeys.advisoriesTop,
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/advisories/top', { params: { query: { limit: 10 } }, signal }))).data,
  });
}
