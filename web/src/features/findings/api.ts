import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { ResponseBody } from '../../api/types';

export type FindingDetail = ResponseBody<'/api/v1/findings/{id}', 'get'>;
export type DismissalReason = NonNullable<FindingDetail['dismissal']>['reason'];
export type FindingEvent = ResponseBody<'/api/v1/findings/{id}/history', 'get'>[number];

export function useFinding(id: string) {
  return useQuery({
    queryKey: queryKeys.finding(id),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/findings/{id}', { params: { path: { id } }, signal }))).data,
  });
}

export function useFindingHistory(id: string) {
  return useQuery({
    queryKey: queryKeys.findingHistory(id),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/findings/{id}/history', { params: { path: { id } }, signal }))).data,
  });
}

export type Triage =
  | { state: 'dismissed'; reason: DismissalReason; comment?: string; until?: string }
  | { state: 'open'; comment?: string };

/** Dismisses or reopens one finding; the finding, its history and its repository's lists are read again. */
export function useTriageFinding(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: Triage) => (await call(api.PATCH('/api/v1/findings/{id}', { params: { path: { id } }, body }))).data,
    onSuccess: (finding) => Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.finding(id) }),
      client.invalidateQueries({ queryKey: queryKeys.repo(finding.repository_id) }),
    ]),
  });
}

/** Dismisses or reopens the findings ticked in a repository's list; its lists are read again. */
export function useBulkTriage(repoId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ ids, triage }: { ids: string[]; triage: Triage }) =>
      (await call(api.POST('/api/v1/repos/{id}/findings/triage', { params: { path: { id: repoId } }, body: { ids, triage } }))).data,
    onSuccess: () => Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.repo(repoId) }),
      client.invalidateQueries({ queryKey: ['findings'] }),
    ]),
  });
}
