import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { VexDocumentSchema, VexQuery } from './schema.js';
import { presentCycloneDxVex, presentOpenVex } from './presenter.js';

const tags = ['findings'];

export const vexRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get('/repos/:id/vex', readRoute({ tags, summary: "A repository's vulnerability findings as a VEX document (OpenVEX or CycloneDX) reflecting their triage", params: IdParams, querystring: VexQuery }, VexDocumentSchema, 400),
    async (request) => {
      const { repo, rows, at } = await services.vexService.statements(request.actor!, request.params.id, request.query.ref);
      return request.query.format === 'openvex' ? presentOpenVex(repo.name, rows, at) : presentCycloneDxVex(rows, at);
    });
};
