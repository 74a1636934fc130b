import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { listRoute } from '../http/route-options.js';
import { ComponentAcrossSchema, ComponentsQuery } from './schema.js';
import { presentComponentUse } from './presenter.js';

const tags = ['components'];

export const componentRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const components = services.componentService;
  app.get('/components', listRoute({ tags, summary: 'Components across every repository the caller can see (where is this package used?)', querystring: ComponentsQuery }, ComponentAcrossSchema, 'Components with their repository, org and ref.'),
    (request, reply) => replyPage(request, reply, (page) => components.search(request.actor!, {
      purl: request.query.purl, name: request.query.name, ecosystem: request.query.ecosystem, advisory: request.query.advisory,
    }, page), presentComponentUse));
};
