import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { createRoute, deleteRoute, listRoute, readRoute, updateRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { CreateOrgBody, OrgListQuery, OrgSchema, UpdateOrgBody } from './schema.js';
import { presentOrg } from './presenter.js';

const tags = ['organizations'];

export const orgRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const orgs = services.orgService;
  const feedback = services.verdicts.service;

  app.get('/orgs', listRoute({ tags, summary: "List the caller's organizations (all of them for an administrator)", querystring: OrgListQuery }, OrgSchema, 'The organizations, oldest first.'),
    (request, reply) => replyPage(request, reply, (page) => orgs.list(request.actor!, request.query.q ?? '', page), presentOrg));

  app.post('/orgs', createRoute({ tags, summary: 'Create an organization; the caller becomes its owner', body: CreateOrgBody }, OrgSchema), async (request, reply) => {
    const org = await orgs.create(request.actor!, request.body, request.ip);
    return reply.code(201).header('location', `/api/v1/orgs/${org.id}`).send({ ...presentOrg(org), pr_feedback: await feedback.orgFeedback(org.id) });
  });

  app.get('/orgs/:id', readRoute({ tags, summary: 'Get an organization', params: IdParams }, OrgSchema),
    async (request) => ({ ...presentOrg(await orgs.get(request.actor!, request.params.id)), pr_feedback: await feedback.orgFeedback(request.params.id) }));

  app.put('/orgs/:id', updateRoute({ tags, summary: 'Update an organization (owners)', params: IdParams, body: UpdateOrgBody }, OrgSchema),
    async (request) => {
      const { pr_feedback: prFeedback, ...changes } = request.body;
      const org = presentOrg(await orgs.update(request.actor!, request.params.id, changes, request.ip));
      return { ...org, pr_feedback: prFeedback ? await feedback.setOrgFeedback(request.actor!, org.id, prFeedback) : await feedback.orgFeedback(org.id) };
    });

  app.delete('/orgs/:id', deleteRoute({ tags, summary: 'Delete an organization with its repositories, teams and scan data (owners)', params: IdParams }),
    async (request, reply) => {
      await orgs.delete(request.actor!, request.params.id, request.ip);
      return reply.code(204).send(null);
    });
};
