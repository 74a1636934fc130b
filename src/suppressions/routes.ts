import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { storedDateTime } from '../date-time.js';
import { replyPage } from '../http/pagination.js';
import { createRoute, deleteRoute, listRoute, readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { SuppressionBody, SuppressionParams, SuppressionSchema } from './schema.js';
import { presentSuppression } from './presenter.js';

const tags = ['findings'];

export const suppressionRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const rules = services.suppressionService;

  app.get('/orgs/:id/suppressions', listRoute({ tags, summary: "An organization's suppression rules, newest first, with how many findings each holds", params: IdParams }, SuppressionSchema, 'Suppression rules.', 404),
    (request, reply) => replyPage(request, reply, (page) => rules.list(request.actor!, request.params.id, page), presentSuppression));

  app.post('/orgs/:id/suppressions', createRoute({ tags, summary: 'Create a suppression rule (owners): it dismisses the matching findings now and in every later upload', params: IdParams, body: SuppressionBody }, SuppressionSchema, 404),
    async (request, reply) => {
      const { body } = request;
      const rule = await rules.create(request.actor!, request.params.id, {
        tool: body.tool ?? null, ruleId: body.rule_id ?? null, path: body.path ?? null, purl: body.purl ?? null, advisory: body.advisory ?? null,
        repositoryIds: body.repositories ?? null, reason: body.reason, comment: body.comment ?? null,
        expiresAt: body.expires_at === undefined ? null : storedDateTime(body.expires_at),
      }, request.ip);
      return reply.code(201).header('location', `/api/v1/orgs/${rule.org_id}/suppressions/${rule.id}`).send(presentSuppression(rule));
    });

  app.get('/orgs/:id/suppressions/:suppression_id', readRoute({ tags, summary: 'Get a suppression rule', params: SuppressionParams }, SuppressionSchema),
    async (request) => presentSuppression(await rules.get(request.actor!, request.params.id, request.params.suppression_id)));

  app.delete('/orgs/:id/suppressions/:suppression_id', deleteRoute({ tags, summary: 'Delete a suppression rule (owners): the findings it dismissed that are still present open again', params: SuppressionParams }),
    async (request, reply) => {
      await rules.remove(request.actor!, request.params.id, request.params.suppression_id, request.ip);
      return reply.code(204).send(null);
    });
};
