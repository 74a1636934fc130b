import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { KeyScope } from '../../api/types';

export function useApiKeys() {
  return useQuery({
    queryKey: queryKeys.apiKeys,
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/apikeys', { params: { query: { per_page: 100 } }, signal }))).data,
  });
}

export function useCreateKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; scopes: KeyScope[]; expires_at: string | null; org_ids: string[] | null }) =>
      (await call(api.POST('/api/v1/apikeys', { body }))).data,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.apiKeys }),
  });
}

export function useRevokeKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await call(api.DELETE('/api/v1/apikeys/{id}', { params: { path: { id } } }))).data,
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.apiKeys }),
  });
}
