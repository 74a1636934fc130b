import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { pageOf as toPage, sendPage } from '../http/pagination.js';
import { created, NoContent, pageOf, problems } from '../http/responses.js';
import { acceptJsonOnly, JSON_BODY_LIMIT } from '../http/json-body.js';
import { CreateOrgBody, OrgListQuery, OrgSchema, presentOrg, UpdateOrgBody } from './presenter.js';

const tags = ['organizations'];
const Params = Type.Object({ id: Type.String() });

export const orgRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const orgs = services.orgService;
  acceptJsonOnly(app);

  app.get('/orgs', {
    schema: {
      tags, summary: "List the caller's organizations (all of them for an administrator)",
      querystring: OrgListQuery,
      response: { 200: pageOf(OrgSchema, 'The organizations, oldest first.'), ...problems(400, 401) },
    },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { total, items } = await orgs.list(request.actor!, request.query.q ?? '', page);
    return sendPage(request, reply, page, total, items.map(presentOrg));
  });

  app.post('/orgs', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Create an organization; the caller becomes its owner',
      body: CreateOrgBody,
      response: { 201: created(OrgSchema, 'Created.'), ...problems(400, 401, 403, 409, 413, 415) },
    },
  }, async (request, reply) => {
    const org = await orgs.create(request.actor!, request.body, request.ip);
    return reply.code(201).header('location', `/api/v1/orgs/${org.id}`).send(presentOrg(org));
  });

  app.get('/orgs/:id', {
    schema: { tags, summary: 'Get an organization', params: Params, response: { 200: OrgSchema, ...problems(401, 404) } },
  }, async (request) => presentOrg(await orgs.get(request.actor!, request.params.id)));

  app.put('/orgs/:id', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Update an organization (owners)',
      params: Params, body: UpdateOrgBody,
      response: { 200: OrgSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
    },
  }, async (request) => presentOrg(await orgs.update(request.actor!, request.params.id, request.body, request.ip)));

  app.delete('/orgs/:id', {
    schema: {
      tags, summary: 'Delete an organization with its repositories, teams and scan data (owners)',
      params: Params, response: { 204: NoContent, ...problems(401, 403, 404) },
    },
  }, async (request, reply) => {
    await orgs.delete(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });
};
