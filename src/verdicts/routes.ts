import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { problems } from '../http/responses.js';
import { listRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { ForgeDeliveryParams, ForgeDeliverySchema } from './schema.js';
import { presentForgeDelivery } from './presenter.js';

const tags = ['forge deliveries'];

export const verdictRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const verdicts = services.verdicts.service;

  app.get('/repos/:id/forge-deliveries', listRoute({
    tags, summary: "Verdicts sent to the repository's forge (check runs, statuses, comments), newest first", params: IdParams,
  }, ForgeDeliverySchema, 'Deliveries, newest first.', 404),
  (request, reply) => replyPage(request, reply, (page) => verdicts.deliveries(request.actor!, request.params.id, page), presentForgeDelivery));

  app.post('/repos/:id/forge-deliveries/:delivery_id/redeliver', {
    schema: {
      tags, summary: 'Send a finished forge delivery again; what it created is edited, not made twice (owners)',
      params: ForgeDeliveryParams,
      response: { 202: ForgeDeliverySchema, ...problems(401, 403, 404, 409) },
    },
  }, async (request, reply) => reply.code(202).send(presentForgeDelivery(await verdicts.redeliver(request.actor!, request.params.id, request.params.delivery_id, request.ip))));
};
