import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { deleteRoute, readRoute } from '../http/route-options.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { IdParams } from '../http/schemas.js';
import { HookAnswer, HookParams, ForgeLinkSchema, LinkForgeBody } from './schema.js';
import { presentLink } from './presenter.js';

const tags = ['forge'];

export const forgeRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const forge = services.forge.service;

  app.get('/orgs/:id/forge', readRoute({ tags, summary: "The organization's forge link, its last sync and what it brought", params: IdParams }, ForgeLinkSchema),
    async (request) => presentLink(await forge.get(request.actor!, request.params.id)));

  app.put('/orgs/:id/forge', {
    bodyLimit: JSON_BODY_LIMIT,
    // The forge is asked with the sign-in token kept with the session: an API key has none.
    config: { sessionOnly: true },
    schema: {
      tags, summary: 'Link the organization to a forge owner (owners who also administer it on the forge); a full sync starts',
      params: IdParams, body: LinkForgeBody, response: { 200: ForgeLinkSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 502) },
    },
  }, async (request) => presentLink(await forge.link(request.actor!, request.params.id, request.body, request.ip)));

  app.delete('/orgs/:id/forge', deleteRoute({ tags, summary: 'Unlink the organization from its forge; what was synced stays as local data (owners)', params: IdParams }),
    async (request, reply) => {
      await forge.unlink(request.actor!, request.params.id, request.ip);
      return reply.code(204).send(null);
    });

  app.post('/orgs/:id/forge/sync', {
    schema: { tags, summary: 'Start a sync pass now (owners)', params: IdParams, response: { 202: ForgeLinkSchema, ...problems(401, 403, 404) } },
  }, async (request, reply) => reply.code(202).send(presentLink(await forge.requestSync(request.actor!, request.params.id))));
};

/** Its own scope: the signature covers the raw bytes, so the body is read as a buffer, never parsed first. */
export const forgeHookRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post('/hooks/forge/:provider', {
    bodyLimit: 25 * 1024 * 1024,
    schema: {
      tags, summary: "A forge's webhook delivery (verified with the provider's webhook secret, queued, applied within seconds)", security: [],
      params: HookParams, response: { 202: HookAnswer, ...problems(400, 401, 413) },
    },
  }, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const { queued } = await services.forge.service.receiveHook(request.params.provider, request.headers, raw);
    return reply.code(202).send({ status: queued ? 'queued' : 'duplicate' });
  });
};
