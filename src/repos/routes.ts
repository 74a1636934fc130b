import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { pageOf as toPage, sendPage } from '../http/pagination.js';
import { created, NoContent, pageOf, problems } from '../http/responses.js';
import { acceptJsonOnly, JSON_BODY_LIMIT } from '../http/json-body.js';
import { CreateRepoBody, presentRepo, RepoListQuery, RepoSchema } from './presenter.js';

const tags = ['repositories'];
const OrgParams = Type.Object({ org_id: Type.String() });
const Params = Type.Object({ id: Type.String() });

export const repoRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const repos = services.repoService;
  acceptJsonOnly(app);

  app.get('/orgs/:org_id/repos', {
    schema: {
      tags, summary: 'List the repositories of an organization',
      params: OrgParams, querystring: RepoListQuery,
      response: { 200: pageOf(RepoSchema, 'The repositories, oldest first.'), ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { total, items } = await repos.list(request.actor!, request.params.org_id, request.query.q ?? '', page);
    return sendPage(request, reply, page, total, items.map(presentRepo));
  });

  app.post('/orgs/:org_id/repos', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Add a repository to an organization (owners)',
      params: OrgParams, body: CreateRepoBody,
      response: { 201: created(RepoSchema, 'Created.'), ...problems(400, 401, 403, 404, 409, 413, 415) },
    },
  }, async (request, reply) => {
    const repo = await repos.create(request.actor!, request.params.org_id, request.body, request.ip);
    return reply.code(201).header('location', `/api/v1/repos/${repo.id}`).send(presentRepo(repo));
  });

  app.get('/repos/:id', {
    schema: { tags, summary: 'Get a repository', params: Params, response: { 200: RepoSchema, ...problems(401, 404) } },
  }, async (request) => presentRepo(await repos.visibleRepo(request.actor!, request.params.id)));

  app.delete('/repos/:id', {
    schema: {
      tags, summary: 'Remove a repository with its scan data (owners)',
      params: Params, response: { 204: NoContent, ...problems(401, 403, 404) },
    },
  }, async (request, reply) => {
    await repos.delete(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });
};
