import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ScimUserRow } from '../db/schema.js';
import type { Services } from '../services.js';
import { created, problems } from '../http/responses.js';
import { IdParams } from '../http/schemas.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { MAX_PAGE, ScimError } from './service.js';
import { RESOURCE_TYPES, SCHEMAS, SERVICE_PROVIDER_CONFIG, USER_SCHEMA } from './schema.js';
import type { ScimFilter } from './service.js';

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
      response: { 201: created(Type.Object({ token: Type.String() }), 'The token: give it to the IdP now, it is never shown again.'), ...problems(401, 403, 404) },
    },
  }, async (request, reply) => {
    const token = await services.scimService.newToken(request.actor, request.params.id, request.ip);
    return reply.code(201).header('cache-control', 'no-store').send({ token });
  });
};

/**
 * SCIM 2.0 (RFC 7643/7644) under /scim/v2, authenticated by an organisation's SCIM token: it sees
 * that organisation's provisioned users only. Errors are SCIM Error messages (RFC 7644 3.12), which
 * is what Okta and Entra ID read.
 */
export const scimRoutes: FastifyPluginAsyncTypebox<{ services: Services; baseUrl: string }> = async (app, { services, baseUrl }) => {
  const scim = services.scimService;
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

  const orgOf = (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    return scim.orgOf(/^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null);
  };
  const location = (id: string) => `${baseUrl}/scim/v2/Users/${id}`;
  const present = (row: ScimUserRow) => ({
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.user_name,
    ...(row.display_name !== null ? { displayName: row.display_name, name: { formatted: row.display_name } } : {}),
    ...(row.email !== null ? { emails: [{ value: row.email, type: 'work', primary: true }] } : {}),
    active: row.active === 1,
    meta: { resourceType: 'User', created: row.created_at, lastModified: row.updated_at, location: location(row.id) },
  });
  const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type(SCIM_JSON).send(JSON.stringify(body));

  app.get('/ServiceProviderConfig', { config, schema }, async (request, reply) => {
    await orgOf(request);
    return send(reply, 200, { ...SERVICE_PROVIDER_CONFIG, meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/scim/v2/ServiceProviderConfig` } });
  });
  app.get('/ResourceTypes', { config, schema }, async (request, reply) => {
    await orgOf(request);
    return send(reply, 200, { schemas: [LIST], totalResults: RESOURCE_TYPES.length, startIndex: 1, itemsPerPage: RESOURCE_TYPES.length, Resources: RESOURCE_TYPES });
  });
  app.get('/Schemas', { config, schema }, async (request, reply) => {
    await orgOf(request);
    return send(reply, 200, { schemas: [LIST], totalResults: SCHEMAS.length, startIndex: 1, itemsPerPage: SCHEMAS.length, Resources: SCHEMAS });
  });

  app.get('/Users', { config, schema }, async (request, reply) => {
    const orgId = await orgOf(request);
    const query = request.query as Record<string, string | undefined>;
    const startIndex = Math.max(1, intParam(query.startIndex, 1));
    const count = Math.max(0, Math.min(MAX_PAGE, intParam(query.count, 100)));
    const { total, rows } = await scim.list(orgId, parseFilter(query.filter), startIndex, count);
    return send(reply, 200, { schemas: [LIST], totalResults: total, startIndex, itemsPerPage: rows.length, Resources: rows.map(present) });
  });
  app.post('/Users', { config, schema, bodyLimit }, async (request, reply) => {
    const row = await scim.create(await orgOf(request), request.body);
    reply.header('location', location(row.id));
    return send(reply, 201, present(row));
  });
  app.get('/Users/:id', { config, schema }, async (request, reply) =>
    send(reply, 200, present(await scim.get(await orgOf(request), (request.params as { id: string }).id))));
  app.put('/Users/:id', { config, schema, bodyLimit }, async (request, reply) =>
    send(reply, 200, present(await scim.replace(await orgOf(request), (request.params as { id: string }).id, request.body))));
  app.patch('/Users/:id', { config, schema, bodyLimit }, async (request, reply) =>
    send(reply, 200, present(await scim.patch(await orgOf(request), (request.params as { id: string }).id, request.body))));
  app.delete('/Users/:id', { config, schema }, async (request, reply) => {
    await scim.delete(await orgOf(request), (request.params as { id: string }).id);
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

const FILTERS: Record<string, 'user_name_key' | 'external_id'> = { username: 'user_name_key', externalid: 'external_id' };

/** The filters Okta and Entra ID send for Users (RFC 7644 3.4.2.2): `userName eq "x"` and `externalId eq "x"`. */
function parseFilter(filter: string | undefined): ScimFilter {
  if (filter === undefined || filter.trim() === '') return null;
  const m = /^\s*(\w+)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  const attribute = m ? FILTERS[m[1]!.toLowerCase()] : undefined;
  if (!m || attribute === undefined) {
    throw new ScimError(400, 'Only the filters userName eq "…" and externalId eq "…" are supported.', 'invalidFilter');
  }
  let value: string;
  try {
    value = JSON.parse(`"${m[2]}"`) as string;
  } catch {
    throw new ScimError(400, 'The filter value is not a valid string.', 'invalidFilter');
  }
  // userName compares ignoring case (caseExact false, RFC 7643 4.1.1); externalId exactly.
  return { attribute, value: attribute === 'user_name_key' ? value.toLowerCase() : value };
}
