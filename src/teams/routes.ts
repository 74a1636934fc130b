import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { PageQuery, pageOf as toPage, sendPage } from '../http/pagination.js';
import { created, NoContent, pageOf, problems } from '../http/responses.js';
import { acceptJsonOnly, JSON_BODY_LIMIT } from '../http/json-body.js';
import { CreateTeamBody, presentTeam, TeamSchema, UpdateTeamBody } from './presenter.js';

const tags = ['teams'];
const OrgParams = Type.Object({ org_id: Type.String() });
const Params = Type.Object({ id: Type.String() });

export const teamRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const teams = services.teamService;
  acceptJsonOnly(app);

  app.get('/orgs/:org_id/teams', {
    schema: {
      tags, summary: 'List the teams of an organization',
      params: OrgParams, querystring: PageQuery,
      response: { 200: pageOf(TeamSchema, 'The teams, oldest first.'), ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { total, items } = await teams.list(request.actor!, request.params.org_id, page);
    return sendPage(request, reply, page, total, items.map(presentTeam));
  });

  app.post('/orgs/:org_id/teams', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Create a team (owners)',
      params: OrgParams, body: CreateTeamBody,
      response: { 201: created(TeamSchema, 'Created.'), ...problems(400, 401, 403, 404, 409, 413, 415) },
    },
  }, async (request, reply) => {
    const team = await teams.create(request.actor!, request.params.org_id, request.body, request.ip);
    return reply.code(201).header('location', `/api/v1/teams/${team.id}`).send(presentTeam(team));
  });

  // Not in the spec's table, but where a created team's Location points.
  app.get('/teams/:id', {
    schema: {
      tags, summary: 'Get a team and its members',
      params: Params, response: { 200: TeamSchema, ...problems(401, 404) },
    },
  }, async (request) => presentTeam(await teams.get(request.actor!, request.params.id)));

  app.put('/teams/:id', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Update a team: name, description, members (owners)',
      params: Params, body: UpdateTeamBody,
      response: { 200: TeamSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
    },
  }, async (request) => presentTeam(await teams.update(request.actor!, request.params.id, request.body, request.ip)));

  app.delete('/teams/:id', {
    schema: {
      tags, summary: 'Delete a team (owners)',
      params: Params, response: { 204: NoContent, ...problems(401, 403, 404) },
    },
  }, async (request, reply) => {
    await teams.delete(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });
};
