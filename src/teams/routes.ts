import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { createRoute, deleteRoute, listRoute, readRoute, updateRoute } from '../http/route-options.js';
import { IdParams, OrgIdParams } from '../http/schemas.js';
import { CreateTeamBody, PutTeamRepoBody, TeamRepoParams, TeamRepoSchema, TeamSchema, UpdateTeamBody } from './schema.js';
import { presentTeam, presentTeamRepo } from './presenter.js';

const tags = ['teams'];

export const teamRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const teams = services.teamService;

  app.get('/orgs/:org_id/teams', listRoute({ tags, summary: 'List the teams of an organization', params: OrgIdParams }, TeamSchema, 'The teams, oldest first.', 404),
    (request, reply) => replyPage(request, reply, (page) => teams.list(request.actor!, request.params.org_id, page), presentTeam));

  app.post('/orgs/:org_id/teams', createRoute({ tags, summary: 'Create a team (owners)', params: OrgIdParams, body: CreateTeamBody }, TeamSchema, 404),
    async (request, reply) => {
      const team = await teams.create(request.actor!, request.params.org_id, request.body, request.ip);
      return reply.code(201).header('location', `/api/v1/teams/${team.id}`).send(presentTeam(team));
    });

  // Not in the spec's table, but where a created team's Location points.
  app.get('/teams/:id', readRoute({ tags, summary: 'Get a team and its members', params: IdParams }, TeamSchema),
    async (request) => presentTeam(await teams.get(request.actor!, request.params.id)));

  app.put('/teams/:id', updateRoute({ tags, summary: 'Update a team: name, description, members (owners)', params: IdParams, body: UpdateTeamBody }, TeamSchema),
    async (request) => presentTeam(await teams.update(request.actor!, request.params.id, request.body, request.ip)));

  app.delete('/teams/:id', deleteRoute({ tags, summary: 'Delete a team (owners; not one that follows the forge: 409)', params: IdParams }, 409), async (request, reply) => {
    await teams.delete(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });

  app.get('/teams/:id/repos', listRoute({ tags, summary: 'List the repositories a team holds, with its role on each', params: IdParams }, TeamRepoSchema,
    'The repositories the caller may read, by name.', 404),
  (request, reply) => replyPage(request, reply, (page) => teams.repos(request.actor!, request.params.id, page), presentTeamRepo));

  app.put('/teams/:id/repos/:repo_id', updateRoute({ tags, summary: 'Give a team a role on a repository of its organization, or change it (owners)', params: TeamRepoParams, body: PutTeamRepoBody }, TeamRepoSchema),
    async (request) => presentTeamRepo(await teams.grant(request.actor!, request.params.id, request.params.repo_id, request.body.role, request.ip)));

  app.delete('/teams/:id/repos/:repo_id', deleteRoute({ tags, summary: "Take a team's role on a repository away (owners)", params: TeamRepoParams }, 409), async (request, reply) => {
    await teams.revoke(request.actor!, request.params.id, request.params.repo_id, request.ip);
    return reply.code(204).send(null);
  });
};
