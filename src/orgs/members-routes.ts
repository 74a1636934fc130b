import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { created, problems } from '../http/responses.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { deleteRoute, listRoute, readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { MemberParams, MemberSchema, PutMemberBody } from './members-schema.js';
import { presentMember } from './members-presenter.js';

const tags = ['members'];

export const memberRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const members = services.memberService;

  app.get('/orgs/:id/members', listRoute({ tags, summary: 'List the members of an organization with their roles', params: IdParams }, MemberSchema, 'The members, in the order they joined.', 404),
    (request, reply) => replyPage(request, reply, (page) => members.list(request.actor!, request.params.id, page), presentMember));

  app.get('/orgs/:id/members/:user_id', readRoute({ tags, summary: 'Get one member of an organization and their role', params: MemberParams }, MemberSchema),
    async (request) => presentMember(await members.get(request.actor!, request.params.id, request.params.user_id)));

  app.put('/orgs/:id/members/:user_id', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Add a user who has signed in before to an organization, or change their role (owners)',
      params: MemberParams, body: PutMemberBody,
      response: {
        200: { description: 'The role was changed (or already was this one).', content: { 'application/json': { schema: MemberSchema } } },
        201: created(MemberSchema, 'The user was added.'),
        ...problems(400, 401, 403, 404, 409, 413, 415),
      },
    },
  }, async (request, reply) => {
    const { id, user_id: userId } = request.params;
    const { member, created: added } = await members.put(request.actor!, id, userId, request.body.role, request.ip);
    if (added) reply.code(201).header('location', `/api/v1/orgs/${id}/members/${userId}`);
    return presentMember(member);
  });

  app.delete('/orgs/:id/members/:user_id', deleteRoute({ tags, summary: 'Remove a member from an organization and its teams (owners)', params: MemberParams }, 409), async (request, reply) => {
    await members.remove(request.actor!, request.params.id, request.params.user_id, request.ip);
    return reply.code(204).send(null);
  });
};
