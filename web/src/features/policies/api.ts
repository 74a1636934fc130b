import { useMutation, useQuery, useQueryClient, type InvalidateQueryFilters, type QueryKey } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Policy, RepoPolicy } from '../../api/types';

export function useOrgPolicy(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgPolicy(orgId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{id}/policy', { params: { path: { id: orgId } }, signal }))).data,
  });
}

export function useRepoPolicy(repoId: string) {
  return useQuery({
    queryKey: queryKeys.repoPolicy(repoId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/policy', { params: { path: { id: repoId } }, signal }))).data,
  });
}

/** The repository judged now, by the policy that applies to it. */
export function useRepoGate(repoId: string) {
  return useQuery({
    queryKey: queryKeys.repoGate(repoId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/gate', { params: { path: { id: repoId } }, signal }))).data,
  });
}

/** Saving a policy keeps the answer as the policy read, then reads again the gates it changes. */
function useSavePolicy<B, T>(save: (body: B) => Promise<T>, policyKey: QueryKey, gates: InvalidateQueryFilters) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: save,
    onSuccess: (saved) => {
      client.setQueryData(policyKey, saved);
      return client.invalidateQueries(gates);
    },
  });
}

/** A new org policy changes every inheriting repository's gate: those are read again too. */
export function useSetOrgPolicy(orgId: string) {
  return useSavePolicy(
    async (body: Policy) => (await call(api.PUT('/api/v1/orgs/{id}/policy', { params: { path: { id: orgId } }, body }))).data,
    queryKeys.orgPolicy(orgId),
    { predicate: (q) => q.queryKey[0] === 'repos' && q.queryKey[3] === 'gate' },
  );
}

export function useSetRepoPolicy(repoId: string) {
  return useSavePolicy(
    async (body: RepoPolicy) => (await call(api.PUT('/api/v1/repos/{id}/policy', { params: { path: { id: repoId } }, body }))).data,
    queryKeys.repoPolicy(repoId),
    { queryKey: queryKeys.repoGate(repoId) },
  );
}
