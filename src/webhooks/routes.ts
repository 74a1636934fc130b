import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { problems } from '../http/responses.js';
import { createRoute, deleteRoute, listRoute, readRoute, updateRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import {
  CreateWebhookBody, DeliveryParams, DeliverySchema, UpdateWebhookBody, WebhookParams, WebhookSchema,
} from './schema.js';
import { presentDelivery, presentWebhook } from './presenter.js';
import type { WebhookSettings } from './service.js';

const tags = ['webhooks'];

function settingsOf(body: UpdateWebhookBody): Partial<WebhookSettings> {
  return {
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.secret !== undefined ? { secret: body.secret } : {}),
    ...(body.events !== undefined ? { events: body.events } : {}),
    ...(body.min_severity !== undefined ? { minSeverity: body.min_severity } : {}),
    ...(body.format !== undefined ? { format: body.format } : {}),
    ...(body.active !== undefined ? { active: body.active } : {}),
    ...(body.repository_ids !== undefined ? { repositoryIds: body.repository_ids } : {}),
  };
}

export const webhookRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const hooks = services.webhooks.service;

  app.get('/orgs/:id/webhooks', listRoute({ tags, summary: "List an organization's webhooks (owners)", params: IdParams }, WebhookSchema, 'The webhooks, oldest first.', 403, 404),
    (request, reply) => replyPage(request, reply, (page) => hooks.list(request.actor!, request.params.id, page), presentWebhook));

  app.post('/orgs/:id/webhooks', createRoute({ tags, summary: 'Create a webhook (owners); a ping is delivered at once', params: IdParams, body: CreateWebhookBody }, WebhookSchema, 404),
    async (request, reply) => {
      const { body } = request;
      const hook = await hooks.create(request.actor!, request.params.id, {
        url: body.url, secret: body.secret, events: body.events, minSeverity: body.min_severity ?? 'info', format: body.format ?? 'json',
        active: body.active ?? true, repositoryIds: body.repository_ids ?? null,
      }, request.ip);
      return reply.code(201).header('location', `/api/v1/orgs/${hook.org_id}/webhooks/${hook.id}`).send(presentWebhook(hook));
    });

  app.get('/orgs/:id/webhooks/:webhook_id', readRoute({ tags, summary: 'Get a webhook (owners)', params: WebhookParams }, WebhookSchema, 403),
    async (request) => presentWebhook(await hooks.get(request.actor!, request.params.id, request.params.webhook_id)));

  app.put('/orgs/:id/webhooks/:webhook_id', updateRoute({ tags, summary: 'Update a webhook (owners)', params: WebhookParams, body: UpdateWebhookBody }, WebhookSchema),
    async (request) => presentWebhook(await hooks.update(request.actor!, request.params.id, request.params.webhook_id, settingsOf(request.body), request.ip)));

  app.delete('/orgs/:id/webhooks/:webhook_id', deleteRoute({ tags, summary: 'Delete a webhook and its deliveries (owners)', params: WebhookParams }),
    async (request, reply) => {
      await hooks.delete(request.actor!, request.params.id, request.params.webhook_id, request.ip);
      return reply.code(204).send(null);
    });

  app.get('/orgs/:id/webhooks/:webhook_id/deliveries', listRoute({ tags, summary: "A webhook's deliveries, newest first (owners)", params: WebhookParams }, DeliverySchema, 'Deliveries, newest first.', 403, 404),
    (request, reply) => replyPage(request, reply, (page) => hooks.deliveries(request.actor!, request.params.id, request.params.webhook_id, page), presentDelivery));

  app.post('/orgs/:id/webhooks/:webhook_id/ping', {
    schema: {
      tags, summary: 'Send the hook a ping now, to test its receiver (owners)',
      params: WebhookParams,
      response: { 202: DeliverySchema, ...problems(401, 403, 404) },
    },
  }, async (request, reply) => reply.code(202).send(presentDelivery(await hooks.ping(request.actor!, request.params.id, request.params.webhook_id, request.ip))));

  app.post('/orgs/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver', {
    schema: {
      tags, summary: 'Send a finished delivery again, with the same delivery id (owners)',
      params: DeliveryParams,
      response: { 202: DeliverySchema, ...problems(401, 403, 404, 409) },
    },
  }, async (request, reply) => {
    const { id, webhook_id: webhookId, delivery_id: deliveryId } = request.params;
    return reply.code(202).send(presentDelivery(await hooks.redeliver(request.actor!, id, webhookId, deliveryId, request.ip)));
  });
};
