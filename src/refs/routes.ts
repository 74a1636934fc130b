import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { listRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { RefSchema } from './schema.js';
import { presentRef } from './presenter.js';

export const refRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const refs = services.refService;

  app.get('/repos/:id/refs', listRoute({
    tags: ['scans'], summary: 'The branches, pull requests and tags of a repository that have results: the default branch first', params: IdParams,
  }, RefSchema, 'Refs: the default branch, then branches, pull requests and tags, each most recently uploaded first.', 404),
  (request, reply) => replyPage(request, reply, (page) => refs.list(request.actor!, request.params.id, page), presentRef));
};
