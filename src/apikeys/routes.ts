import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { storedDateTime } from '../date-time.js';
import { replyPage } from '../http/pagination.js';
import { NoContent, problems } from '../http/responses.js';
import { listRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from './schema.js';
import { presentApiKey } from './presenter.js';

const tags = ['api keys'];
// Keys cannot manage keys: a leaked key must not be able to mint more.
const config = { sessionOnly: true } as const;

export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const keys = services.apiKeyService;

  app.get('/apikeys', { config, ...listRoute({ tags, summary: "List the current user's API keys" }, ApiKeySchema, 'The keys, oldest first.', 403) }, (request, reply) => replyPage(request, reply, (page) => keys.list(request.actor!, page), presentApiKey));

  app.post('/apikeys', {
    config,
    schema: { tags, summary: 'Create an API key (the secret is in this response only)', body: CreateApiKeyBody, response: { 201: CreatedApiKeySchema, ...problems(400, 401, 403, 413, 415) } },
  }, async (request, reply) => {
    const { name, expires_at: expiresAt, scopes, org_ids: orgIds } = request.body;
    const { row, secret } = await keys.create(request.actor!, { name, expiresAt: expiresAt ? storedDateTime(expiresAt) : null, scopes, orgIds }, request.ip);
    return reply.code(201).send({ ...presentApiKey(row), key: secret });
  });

  app.delete('/apikeys/:id', {
    config,
    schema: { tags, summary: 'Revoke an API key; it stops working at once', params: IdParams, response: { 204: NoContent, ...problems(401, 403, 404) } },
  }, async (request, reply) => {
    await keys.revoke(request.actor!, request.params.id, request.ip);
    return reply.code(204).send(null);
  });
};
