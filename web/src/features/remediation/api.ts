import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { ComponentsDiff, RemediationAction } from '../../api/types';

/** A ref's upgrade plan ('' : the default branch). */
export function useRemediation(repoId: string, ref: string) {
  return useQuery({
    queryKey: queryKeys.repoRemediation(repoId, ref),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/remediation', {
      params: { path: { id: repoId }, query: ref ? { ref } : {} }, signal,
    }))).data as RemediationAction[],
  });
}

/** What a pull request changes in the components against its base. */
export function useComponentsDiff(repoId: string, base: string, head: string) {
  return useQuery({
    queryKey: queryKeys.repoComponentsDiff(repoId, base, head),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/repos/{id}/components/diff', {
      params: { path: { id: repoId }, query: { base, head } }, signal,
    }))).data as ComponentsDiff,
  });
}
