import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { NewSuppressionRule, ResponseBody } from '../../api/types';

export type SuppressionRule = ResponseBody<'/api/v1/orgs/{id}/suppressions', 'get'>[number];

/** The largest page: an organization keeps a handful of rules, shown in one list. */
const RULES_SHOWN = 100;

export function useSuppressionRules(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgSuppressions(orgId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/v1/orgs/{id}/suppressions', { params: { path: { id: orgId }, query: { per_page: RULES_SHOWN } }, signal }))).data,
  });
}

/** A rule dismisses findings across the organization's repositories: their lists are read again too. */
function useRulesChanged(orgId: string) {
  const client = useQueryClient();
  return () => Promise.all([
    client.invalidateQueries({ queryKey: queryKeys.orgSuppressions(orgId) }),
    client.invalidateQueries({ queryKey: ['repos'] }),
    client.invalidateQueries({ queryKey: ['findings'] }),
  ]);
}

export function useCreateSuppressionRule(orgId: string) {
  const changed = useRulesChanged(orgId);
  return useMutation({
    mutationFn: async (body: NewSuppressionRule) =>
      (await call(api.POST('/api/v1/orgs/{id}/suppressions', { params: { path: { id: orgId } }, body }))).data,
    onSuccess: changed,
  });
}

export function useDeleteSuppressionRule(orgId: string) {
  const changed = useRulesChanged(orgId);
  return useMutation({
    mutationFn: async (ruleId: string) =>
      (await call(api.DELETE('/api/v1/orgs/{id}/suppressions/{suppression_id}', { params: { path: { id: orgId, suppression_id: ruleId } } }))).data,
    onSuccess: changed,
  });
}
