import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { NewCiTrustRule, ResponseBody } from '../../api/types';

export type CiTrustRule = ResponseBody<'/api/v1/orgs/{id}/ci-trust', 'get'>[number];

/** An organization keeps a handful of rules, shown in one list. */
const RULES_SHOWN = 100;

export function useCiTrustRules(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgCiTrust(orgId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/v1/orgs/{id}/ci-trust', { params: { path: { id: orgId }, query: { per_page: RULES_SHOWN } }, signal }))).data,
  });
}

export function useCiDefaultRule(orgId: string) {
  return useQuery({
    queryKey: [...queryKeys.orgCiTrust(orgId), 'default-rule'],
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/v1/orgs/{id}/ci-trust/default-rule', { params: { path: { id: orgId } }, signal }))).data,
  });
}

function useChanged(orgId: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: queryKeys.orgCiTrust(orgId) });
}

export function useCreateCiTrustRule(orgId: string) {
  const changed = useChanged(orgId);
  return useMutation({
    mutationFn: async (body: NewCiTrustRule) => (await call(api.POST('/api/v1/orgs/{id}/ci-trust', { params: { path: { id: orgId } }, body }))).data,
    onSuccess: changed,
  });
}

export function useDeleteCiTrustRule(orgId: string) {
  const changed = useChanged(orgId);
  return useMutation({
    mutationFn: async (ruleId: string) =>
      (await call(api.DELETE('/api/v1/orgs/{id}/ci-trust/{rule_id}', { params: { path: { id: orgId, rule_id: ruleId } } }))).data,
    onSuccess: changed,
  });
}

export function useSetCiDefaultRule(orgId: string) {
  const changed = useChanged(orgId);
  return useMutation({
    mutationFn: async (enabled: boolean) =>
      (await call(api.PUT('/api/v1/orgs/{id}/ci-trust/default-rule', { params: { path: { id: orgId } }, body: { enabled } }))).data,
    onSuccess: changed,
  });
}
