import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Services } from '../services.js';
import { storedDateTime } from '../date-time.js';
import { readRoute, updateRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { badRequest } from '../problem.js';
import type { TriageChange } from './service.js';
import { BulkTriageBody, BulkTriageResult, FindingDetailSchema, FindingHistorySchema, TriageBody } from './schema.js';
import { presentFindingDetail, presentHistory } from './presenter.js';

const tags = ['findings'];

export const findingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const findings = services.findingService;

  app.get('/findings/:id', readRoute({ tags, summary: 'One finding with its dismissal and its place on the forge', params: IdParams }, FindingDetailSchema),
    async (request) => presentFindingDetail(await findings.get(request.actor!, request.params.id)));

  app.get('/findings/:id/history', readRoute({ tags, summary: "A finding's history: what uploads and people did to it", params: IdParams }, FindingHistorySchema),
    async (request) => {
      const { finding, events, rematches } = await findings.history(request.actor!, request.params.id);
      return presentHistory(finding, events, rematches);
    });

  app.patch('/findings/:id', updateRoute({ tags, summary: 'Dismiss a finding with a reason, or open it again (any member; keys need write)', params: IdParams, body: TriageBody }, FindingDetailSchema),
    async (request) => presentFindingDetail(await findings.triage(request.actor!, request.params.id, changeOf(request.body), request.ip)));

  app.post('/repos/:id/findings/triage', updateRoute({ tags, summary: 'Dismiss or reopen many findings at once, by ids or by the findings list filters (any member; keys need write)', params: IdParams, body: BulkTriageBody }, BulkTriageResult),
    async (request) => {
      const { ids, filter, triage } = request.body;
      if ((ids === undefined) === (filter === undefined)) {
        throw badRequest('Name the findings either by ids or by filter, one of the two.', [{ path: ids ? '/filter' : '/ids', message: 'give ids or filter' }]);
      }
      const selection = ids ? { ids } : {
        ref: filter!.ref,
        filters: {
          state: filter!.state ?? 'open', severity: filter!.severity, tool: filter!.tool, q: filter!.q,
          introducedIn: filter!.introduced_in, reopenedIn: filter!.reopened_in,
        },
      };
      return { changed: await findings.triageMany(request.actor!, request.params.id, selection, changeOf(triage), request.ip) };
    });
};

function changeOf(body: Static<typeof TriageBody>): TriageChange {
  return body.state === 'dismissed'
    ? { state: body.state, reason: body.reason, comment: body.comment ?? null, until: body.until === undefined ? null : storedDateTime(body.until) }
    : { state: body.state, comment: body.comment ?? null };
}
