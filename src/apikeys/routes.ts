import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { PageQuery, pageOf as toPage, sendPage } from '../http/pagination.js';
import { NoContent, pageOf, problems } from '../http/responses.js';
import { acceptJsonOnly } from '../http/json-body.js';
import { ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema, presentApiKey } from './presenter.js';

const tags = ['api keys'];
// Keys cannot manage keys: a leaked key must not be able to mint more.
const config = { sessionOnly: true } as const;

export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  acceptJsonOnly(app);
  const keys = services.apiKeyService;

  app.get('/apikeys', {
    config,
    schema: { tags, summary: "List the current user's API keys", querystring: PageQuery, response: { 200: pageOf(ApiKeySchema, 'The keys, oldest first.'), ...problems(400, 401, 403) } },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { total, items } = await keys.list(request.actor!, page);
    return sendPage(request, reply, page, total, items.map(presentApiKey));
  });

  app.post('/apikeys', {
    config,
    schema: { tags, summary: 'Create an API key (the secret is in this response only)', body: CreateApiKeyBody, response: { 201: CreatedApiKeySchema, ...problems(400, 401, 403, 413, 415) } },
  }, async (request, reply) => {
    const { row, secret } = await keys.create(request.actor!, request.body, request.ip);
    return reply.code(201).send({ ...presentApiKey(row), key: secret });
  });

  app.delete('/apikeys/:id', {
    config,
    schema: { tags, summary: 'Revoke an API key; it stops working at once', params: Type.Object({ id: Type.String() }), response: { 204: NoContent, ...problems(401, 403, 404) } },
  }, async (request, reply) => {
    await keys.revoke(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });
};
