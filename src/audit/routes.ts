import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { listRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { AuditEventSchema, AuditQuery } from './schema.js';
import { presentAuditEvent } from './presenter.js';

const tags = ['audit'];

export const auditRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const audit = services.auditService;

  app.get('/orgs/:id/audit', listRoute({ tags, summary: "An organization's audit log, newest first (owners and administrators)", params: IdParams, querystring: AuditQuery }, AuditEventSchema, 'Events, newest first.', 403, 404),
    (request, reply) => replyPage(request, reply, (page) => audit.ofOrg(request.actor!, request.params.id, filtersOf(request.query), page), presentAuditEvent));

  app.get('/audit', listRoute({ tags, summary: 'The whole audit log, newest first (site administrators)', querystring: AuditQuery }, AuditEventSchema, 'Events, newest first.', 403),
    (request, reply) => replyPage(request, reply, (page) => audit.ofSite(request.actor!, filtersOf(request.query), page), presentAuditEvent));
};

function filtersOf(query: AuditQuery) {
  return { action: query.action, actor: query.actor };
}
