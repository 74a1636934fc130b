import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { created, problems } from '../http/responses.js';
import { IdParams } from '../http/schemas.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { MAX_PAGE } from './service.js';
import { ScimError } from './scim-error.js';
import { presentGroup, presentUser } from './presenter.js';
import { RESOURCE_TYPES, SCHEMAS, SERVICE_PROVIDER_CONFIG } from './schema.js';

const SCIM_JSON = 'application/scim+json';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** POST /api/v1/orgs/{id}/scim-token: owners (browser session only: a leaked API key must not mint provisioning tokens). */
export const scimTokenRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post('/orgs/:id/scim-token', {
    config: { sessionOnly: true },
    schema: {
      tags: ['scim'],
      summary: 'Create the SCIM bearer token of an organization (owners); shown once, it replaces the previous one',
      params: IdParams,
      querystring: Type.Object({
        provider: Type.Optional(Type.String({
          maxLength: 100,
          description: 'The OpenID Connect or SAML provider whose accounts SCIM users are linked to; by default the only one configured.',
        })),
      }),
      response: {
        201: created(Type.Object({
          token: Type.String(),
          provider: Type.Union([Type.String(), Type.Null()], { description: 'The provider whose accounts SCIM users are linked to; null: none (they stay pending).' }),
        }), 'The token: give it to the IdP now, it is never shown again.'),
        ...problems(400, 401, 403, 404),
      },
    },
  }, async (request, reply) => {
    const answer = await services.scimService.newToken(request.actor, request.params.id, request.query.provider, request.ip);
    return reply.code(201).header('cache-control', 'no-store').send(answer);
  });
};

/**
 * SCIM 2.0 (RFC 7643/7644) under /scim/v2, authenticated by an organisation's SCIM token: it sees
 * that organisation's provisioned users and groups only. Errors are SCIM Error messages (RFC 7644
 * 3.12), which is what Okta and Entra ID read.
 */
export const scimRoutes: FastifyPluginAsyncTypebox<{ services: Services; baseUrl: string }> = async (app, { services, baseUrl }) => {
  const scim = services.scimService;
  const groups = services.scimGroupService;
  const config = { ownBearer: true } as const;
  const schema = { hide: true } as const;
  // SCIM bodies are small JSON documents, whatever the app-wide limit for uploads.
  const bodyLimit = JSON_BODY_LIMIT;

  app.addContentTypeParser(SCIM_JSON, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ScimError(400, 'The body is not valid JSON.', 'invalidSyntax'), undefined);
    }
  });
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ScimError) return sendError(reply, error);
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendError(reply, new ScimError(status, 'The request was not understood.', 'invalidSyntax'));
    request.log.error({ err: error }, 'SCIM request failed');
    return sendError(reply, new ScimError(500, 'The request failed.'));
  });

  const callerOf = (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    return scim.callerOf(/^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null);
  };
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const queryOf = (request: FastifyRequest) => request.query as Record<string, string | undefined>;
  const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type(SCIM_JSON).send(JSON.stringify(body));
  const list = (reply: FastifyReply, total: number, startIndex: number, resources: unknown[]) =>
    send(reply, 200, { schemas: [LIST], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources });
  const user = (row: Parameters<typeof presentUser>[0]) => presentUser(row, baseUrl);

  app.get('/ServiceProviderConfig', { config, schema }, async (request, reply) => {
    await callerOf(request);
    return send(reply, 200, { ...SERVICE_PROVIDER_CONFIG, meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/scim/v2/ServiceProviderConfig` } });
  });
  app.get('/ResourceTypes', { config, schema }, async (request, reply) => {
    await callerOf(request);
    return list(reply, RESOURCE_TYPES.length, 1, RESOURCE_TYPES);
  });
  app.get('/Schemas', { config, schema }, async (request, reply) => {
    await callerOf(request);
    return list(reply, SCHEMAS.length, 1, SCHEMAS);
  });

  app.get('/Users', { config, schema }, async (request, reply) => {
    const caller = await callerOf(request);
    const { startIndex, count } = pageOf(queryOf(request));
    const { total, rows } = await scim.list(caller, queryOf(request).filter, startIndex, count);
    return list(reply, total, startIndex, rows.map(user));
  });
  app.post('/Users', { config, schema, bodyLimit }, async (request, reply) => {
    const row = await scim.create(await callerOf(request), request.body);
    reply.header('location', `${baseUrl}/scim/v2/Users/${row.id}`);
    return send(reply, 201, user(row));
  });
  app.get('/Users/:id', { config, schema }, async (request, reply) =>
    send(reply, 200, user(await scim.get(await callerOf(request), idOf(request)))));
  app.put('/Users/:id', { config, schema, bodyLimit }, async (request, reply) =>
    send(reply, 200, user(await scim.replace(await callerOf(request), idOf(request), request.body))));
  app.patch('/Users/:id', { config, schema, bodyLimit }, async (request, reply) =>
    send(reply, 200, user(await scim.patch(await callerOf(request), idOf(request), request.body))));
  app.delete('/Users/:id', { config, schema }, async (request, reply) => {
    await scim.delete(await callerOf(request), idOf(request));
    return reply.code(204).send();
  });

  app.get('/Groups', { config, schema }, async (request, reply) => {
    const caller = await callerOf(request);
    const query = queryOf(request);
    const { startIndex, count } = pageOf(query);
    const { total, groups: found } = await groups.list(caller, query.filter, startIndex, count, withMembers(query));
    return list(reply, total, startIndex, found.map((g) => presentGroup(g.group, g.members, baseUrl)));
  });
  app.post('/Groups', { config, schema, bodyLimit }, async (request, reply) => {
    const caller = await callerOf(request);
    const group = await groups.create(caller, request.body);
    const { members } = await groups.get(caller, group.id, true);
    reply.header('location', `${baseUrl}/scim/v2/Groups/${group.id}`);
    return send(reply, 201, presentGroup(group, members, baseUrl));
  });
  app.get('/Groups/:id', { config, schema }, async (request, reply) => {
    const { group, members } = await groups.get(await callerOf(request), idOf(request), withMembers(queryOf(request)));
    return send(reply, 200, presentGroup(group, members, baseUrl));
  });
  app.put('/Groups/:id', { config, schema, bodyLimit }, async (request, reply) => {
    const caller = await callerOf(request);
    await groups.replace(caller, idOf(request), request.body);
    const { group, members } = await groups.get(caller, idOf(request), true);
    return send(reply, 200, presentGroup(group, members, baseUrl));
  });
  // 204, as Entra ID asks of a group's PATCH (a body listing every member is what it advises against); Okta takes it too.
  app.patch('/Groups/:id', { config, schema, bodyLimit }, async (request, reply) => {
    await groups.patch(await callerOf(request), idOf(request), request.body);
    return reply.code(204).send();
  });
  app.delete('/Groups/:id', { config, schema }, async (request, reply) => {
    await groups.delete(await callerOf(request), idOf(request));
    return reply.code(204).send();
  });
};

function sendError(reply: FastifyReply, error: ScimError) {
  const body = { schemas: [ERROR], status: String(error.status), detail: error.detail, ...(error.scimType ? { scimType: error.scimType } : {}) };
  return reply.code(error.status).type(SCIM_JSON).send(JSON.stringify(body));
}

function intParam(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^-?\d{1,9}$/.test(value)) throw new ScimError(400, 'startIndex and count must be integers.', 'invalidValue');
  return Number(value);
}

/** RFC 7644 3.4.2.4: startIndex below 1 is 1, a negative count is 0. */
function pageOf(query: Record<string, string | undefined>) {
  return { startIndex: Math.max(1, intParam(query.startIndex, 1)), count: Math.max(0, Math.min(MAX_PAGE, intParam(query.count, 100))) };
}

/** `excludedAttributes=members` (RFC 7644 3.4.2.5), which Entra ID sends when it reads groups. */
function withMembers(query: Record<string, string | undefined>): boolean {
  return !(query.excludedAttributes ?? '').split(',').some((a) => a.trim().toLowerCase() === 'members');
}
