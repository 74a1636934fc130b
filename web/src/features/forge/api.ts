import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

/** While a pass is under way (asked for, not finished), the link is read this often. */
const SYNCING_POLL_MS = 2000;

/** The org's forge link; null when it follows no forge. Read again and again while a pass is asked for or under way. */
export function useForgeLink(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgForge(orgId),
    queryFn: async ({ signal }) => {
      try {
        return (await call(api.GET('/api/v1/orgs/{id}/forge', { params: { path: { id: orgId } }, signal }))).data;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    refetchInterval: (query) => (query.state.data?.syncing ? SYNCING_POLL_MS : false),
  });
}

function useInvalidate(orgId: string) {
  const client = useQueryClient();
  // A pass changes repositories, members and teams too.
  return () => client.invalidateQueries({ queryKey: ['orgs', orgId] });
}

export function useLinkForge(orgId: string) {
  const invalidate = useInvalidate(orgId);
  return useMutation({
    mutationFn: async (body: { provider: string; owner: string }) => (await call(api.PUT('/api/v1/orgs/{id}/forge', { params: { path: { id: orgId } }, body }))).data,
    onSuccess: invalidate,
  });
}

export function useSyncForge(orgId: string) {
  const invalidate = useInvalidate(orgId);
  return useMutation({
    mutationFn: async () => (await call(api.POST('/api/v1/orgs/{id}/forge/sync', { params: { path: { id: orgId } } }))).data,
    onSuccess: invalidate,
  });
}

export function useUnlinkForge(orgId: string) {
  const invalidate = useInvalidate(orgId);
  return useMutation({
    mutationFn: async () => (await call(api.DELETE('/api/v1/orgs/{id}/forge', { params: { path: { id: orgId } } }))).data,
    onSuccess: invalidate,
  });
}
