import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { readRoute, updateRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { FindingDetailSchema, FindingHistorySchema, TriageBody } from './schema.js';
import { presentFindingDetail, presentHistory } from './presenter.js';

const tags = ['findings'];

export const findingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const findings = services.findingService;

  app.get('/findings/:id', readRoute({ tags, summary: 'One finding with its dismissal and its place on the forge', params: IdParams }, FindingDetailSchema),
    async (request) => presentFindingDetail(await findings.get(request.actor!, request.params.id)));

  app.get('/findings/:id/history', readRoute({ tags, summary: "A finding's history: what uploads and people did to it", params: IdParams }, FindingHistorySchema),
    async (request) => {
      const { finding, events } = await findings.history(request.actor!, request.params.id);
      return presentHistory(finding, events);
    });

  app.patch('/findings/:id', updateRoute({ tags, summary: 'Dismiss a finding with a reason, or open it again (any member; keys need write)', params: IdParams, body: TriageBody }, FindingDetailSchema),
    async (request) => {
      const body = request.body;
      const change = body.state === 'dismissed'
        ? { state: body.state, reason: body.reason, comment: body.comment ?? null, until: body.until === undefined ? null : new Date(body.until).toISOString() }
        : { state: body.state, comment: body.comment ?? null };
      return presentFindingDetail(await findings.triage(request.actor!, request.params.id, change, request.ip));
    });
};
