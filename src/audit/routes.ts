import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { PageQuery, pageOf as toPage, sendPage } from '../http/pagination.js';
import { pageOf, problems } from '../http/responses.js';
import { forbidden } from '../http/problem.js';
import { AuditEventSchema, presentAuditEvent } from './presenter.js';

const tags = ['audit'];

export const auditRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get('/orgs/:id/audit', {
    schema: {
      tags, summary: "An organization's audit log, newest first (owners and administrators)",
      params: Type.Object({ id: Type.String() }), querystring: PageQuery,
      response: { 200: pageOf(AuditEventSchema, 'Events, newest first.'), ...problems(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    await services.orgPolicy.authorize(request.actor!, request.params.id, 'manage', 'The organization');
    const page = toPage(request.query);
    const { total, items } = await services.audit.page(request.params.id, page);
    return sendPage(request, reply, page, total, items.map(presentAuditEvent));
  });

  app.get('/audit', {
    schema: {
      tags, summary: 'The whole audit log, newest first (site administrators)', querystring: PageQuery,
      response: { 200: pageOf(AuditEventSchema, 'Events, newest first.'), ...problems(400, 401, 403) },
    },
  }, async (request, reply) => {
    if (!request.actor!.isAdmin) throw forbidden('Only site administrators may read the site-wide audit log.');
    const page = toPage(request.query);
    const { total, items } = await services.audit.page(null, page);
    return sendPage(request, reply, page, total, items.map(presentAuditEvent));
  });
};
