import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { presentUserSummary, UserSummarySchema } from './summary.js';

const MAX_RESULTS = 20;

/** For picking people to add to an organization: only users who have signed in exist here. */
export const userSearchRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get('/users', {
    schema: {
      tags: ['users'],
      summary: `Find users by the start of their login (at most ${MAX_RESULTS}, by login)`,
      querystring: Type.Object({ q: Type.String({ minLength: 1, maxLength: 100, description: 'The start of a login, ignoring case.' }) }),
      response: { 200: Type.Array(UserSummarySchema, { maxItems: MAX_RESULTS }), ...problems(400, 401) },
    },
  }, async (request) => (await services.users.searchByLogin(request.query.q, MAX_RESULTS)).map(presentUserSummary));
};
