import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { WebhookChanges, WebhookDelivery, WebhookSettings } from '../../api/types';

/** Deliveries under way are read this often, so a ping's outcome shows without a reload. */
const DELIVERING_POLL_MS = 1000;
const DELIVERIES_SHOWN = 30;

export function useWebhooks(orgId: string) {
  return useQuery({
    queryKey: queryKeys.orgWebhooks(orgId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{id}/webhooks', { params: { path: { id: orgId }, query: { per_page: 100 } }, signal }))).data,
  });
}

const underWay = (d: WebhookDelivery) => d.status === 'pending' || d.status === 'delivering';

export function useDeliveries(orgId: string, hookId: string) {
  return useQuery({
    queryKey: queryKeys.webhookDeliveries(orgId, hookId),
    queryFn: async ({ signal }) => (await call(api.GET('/api/v1/orgs/{id}/webhooks/{webhook_id}/deliveries', {
      params: { path: { id: orgId, webhook_id: hookId }, query: { per_page: DELIVERIES_SHOWN } }, signal,
    }))).data,
    refetchInterval: (query) => (query.state.data?.some(underWay) ? DELIVERING_POLL_MS : false),
  });
}

/** The hooks, and every hook's deliveries (a new hook's ping, a test ping, a redelivery). */
function useInvalidateHooks(orgId: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: queryKeys.orgWebhooks(orgId) });
}

export function useCreateWebhook(orgId: string) {
  const invalidate = useInvalidateHooks(orgId);
  return useMutation({
    mutationFn: async (body: WebhookSettings) => (await call(api.POST('/api/v1/orgs/{id}/webhooks', { params: { path: { id: orgId } }, body }))).data,
    onSuccess: invalidate,
  });
}

export function useUpdateWebhook(orgId: string, hookId: string) {
  const invalidate = useInvalidateHooks(orgId);
  return useMutation({
    mutationFn: async (body: WebhookChanges) =>
      (await call(api.PUT('/api/v1/orgs/{id}/webhooks/{webhook_id}', { params: { path: { id: orgId, webhook_id: hookId } }, body }))).data,
    onSuccess: invalidate,
  });
}

export function useDeleteWebhook(orgId: string) {
  const invalidate = useInvalidateHooks(orgId);
  return useMutation({
    mutationFn: async (hookId: string) => (await call(api.DELETE('/api/v1/orgs/{id}/webhooks/{webhook_id}', { params: { path: { id: orgId, webhook_id: hookId } } }))).data,
    onSuccess: invalidate,
  });
}

export function usePing(orgId: string, hookId: string) {
  const invalidate = useInvalidateHooks(orgId);
  return useMutation({
    mutationFn: async () => (await call(api.POST('/api/v1/orgs/{id}/webhooks/{webhook_id}/ping', { params: { path: { id: orgId, webhook_id: hookId } } }))).data,
    onSuccess: invalidate,
  });
}

export function useRedeliver(orgId: string, hookId: string) {
  const invalidate = useInvalidateHooks(orgId);
  return useMutation({
    mutationFn: async (deliveryId: string) => (await call(api.POST('/api/v1/orgs/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
      params: { path: { id: orgId, webhook_id: hookId, delivery_id: deliveryId } },
    }))).data,
    onSuccess: invalidate,
  });
}
