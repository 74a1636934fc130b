import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { problems } from '../http/responses.js';
import { createRoute, deleteRoute, listRoute, readRoute, updateRoute } from '../http/route-options.js';
import { IdParams, OrgIdParams } from '../http/schemas.js';
import { CreateRepoBody, RepoListQuery, RepoLookupQuery, RepoSchema, UpdateRepoBody } from './schema.js';
import { presentRepo } from './presenter.js';

const tags = ['repositories'];

export const repoRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const repos = services.repoService;

  app.get('/orgs/:org_id/repos', listRoute({ tags, summary: 'List the repositories of an organization', params: OrgIdParams, querystring: RepoListQuery }, RepoSchema, 'The repositories, oldest first (or as `sort` says).', 404),
    (request, reply) => replyPage(request, reply, (page) => repos.list(request.actor!, request.params.org_id, request.query.q ?? '', page, request.query.sort), presentRepo));

  app.post('/orgs/:org_id/repos', createRoute({ tags, summary: 'Add a repository to an organization (owners)', params: OrgIdParams, body: CreateRepoBody }, RepoSchema, 404),
    async (request, reply) => {
      const { name, url, default_branch: defaultBranch } = request.body;
      const repo = await repos.create(request.actor!, request.params.org_id, { name, url, defaultBranch }, request.ip);
      return reply.code(201).header('location', `/api/v1/repos/${repo.id}`).send({ ...presentRepo(repo), pr_feedback: null });
    });

  app.get('/repos/lookup', {
    config: { ciToken: true },
    schema: {
      tags, summary: "Find a repository by its organization's and its own name (ignoring case)",
      querystring: RepoLookupQuery, response: { 200: RepoSchema, ...problems(400, 401, 404) },
    },
  }, async (request) => presentRepo(await repos.lookup(request.actor!, request.query.org, request.query.name)));

  const feedback = services.verdicts.service;
  app.get('/repos/:id', readRoute({ tags, summary: 'Get a repository', params: IdParams }, RepoSchema),
    async (request) => ({ ...presentRepo(await repos.visibleRepo(request.actor!, request.params.id)), pr_feedback: await feedback.repoFeedback(request.params.id) }));

  app.put('/repos/:id', updateRoute({ tags, summary: "Update a repository's settings (the repository's admin role)", params: IdParams, body: UpdateRepoBody }, RepoSchema),
    async (request) => {
      const { id } = request.params;
      await repos.authorized(request.actor!, id, 'repo.configure');
      const prFeedback = request.body.pr_feedback === undefined ? await feedback.repoFeedback(id)
        : await feedback.setRepoFeedback(request.actor!, id, request.body.pr_feedback);
      return { ...presentRepo(await repos.visibleRepo(request.actor!, id)), pr_feedback: prFeedback };
    });

  app.delete('/repos/:id', deleteRoute({ tags, summary: 'Remove a repository with its scan data (owners)', params: IdParams }), async (request, reply) => {
    await repos.delete(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });
};
