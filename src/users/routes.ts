import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { CurrentUserSchema, MAX_SEARCH_RESULTS, UserSearchQuery, UserSummarySchema } from './schema.js';
import { presentCurrentUser, presentUserSummary } from './presenter.js';

const tags = ['users'];

export const meRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get('/me', {
    schema: { tags, summary: 'The current user and their organizations', response: { 200: CurrentUserSchema, ...problems(401) } },
  }, async (request) => presentCurrentUser(await services.userService.current(request.actor!)));
};

/** Registered apart from /me only to keep the paths of the OpenAPI document in their order. */
export const userSearchRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const users = services.userService;
  app.get('/users', {
    schema: {
      tags,
      summary: `Find users by the start of their login (at most ${MAX_SEARCH_RESULTS}, by login)`,
      querystring: UserSearchQuery,
      response: { 200: Type.Array(UserSummarySchema, { maxItems: MAX_SEARCH_RESULTS }), ...problems(400, 401) },
    },
  }, async (request) => (await users.search(request.actor!, request.query.q, MAX_SEARCH_RESULTS)).map(presentUserSummary));
};
