import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { CurrentUserSchema, presentCurrentUser } from './presenter.js';

export const meRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get('/me', {
    schema: {
      tags: ['users'],
      summary: 'The current user and their organizations',
      response: { 200: CurrentUserSchema, ...problems(401) },
    },
  }, async (request) => {
    const actor = request.actor!;
    const orgs = await services.users.orgRoles(actor.user.id);
    const visible = actor.key?.orgIds ? orgs.filter((o) => actor.key!.orgIds!.includes(o.id)) : orgs;
    return presentCurrentUser(actor.user, actor.isAdmin, services.config.providers, visible);
  });
};
