import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { deleteRoute, listRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { AnalysisParams, AnalysisSchema } from './schema.js';
import { presentAnalysis } from './presenter.js';

const tags = ['scans'];

export const analysisRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const analyses = services.analysisService;

  app.get('/repos/:id/analyses', listRoute({ tags, summary: "A repository's analyses: one per tool, category and format", params: IdParams }, AnalysisSchema, 'Analyses, by tool, category and format.', 404),
    (request, reply) => replyPage(request, reply, (page) => analyses.list(request.actor!, request.params.id, page), presentAnalysis));

  app.delete('/repos/:id/analyses/:analysis_id', deleteRoute({ tags, summary: 'Remove an analysis with its findings and components (owners); the repository status follows at once', params: AnalysisParams }),
    async (request, reply) => {
      await analyses.remove(request.actor!, request.params.id, request.params.analysis_id, request.ip);
      return reply.code(204).send(null);
    });
};
