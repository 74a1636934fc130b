import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { stringify } from 'csv-stringify/sync';
import type { Services } from '../services.js';
import { readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { ActionSchema, OrgActionSchema, RemediationQuery } from './schema.js';
import { actionCsvRows, presentAction, presentOrgAction } from './presenter.js';

const tags = ['remediation'];

/** Upgrade plans: per repository ref (JSON or CSV) and across an organization. */
export const remediationRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const remediation = services.remediation;
  const repoPlan = readRoute({ tags, summary: "A ref's upgrade plan, most risk removed first; with Accept: text/csv the same as CSV", params: IdParams, querystring: RemediationQuery }, {
    description: 'The actions.',
    content: {
      'application/json': { schema: Type.Array(ActionSchema) },
      'text/csv': { schema: { type: 'string', description: 'A header line, then one line per action (RFC 4180).' } },
    },
  } as unknown as ReturnType<typeof Type.Array<typeof ActionSchema>>, 400);
  app.get('/repos/:id/remediation', repoPlan, async (request, reply) => {
    const actions = (await remediation.repository(request.actor!, request.params.id, request.query.ref)).map(presentAction);
    if (!wantsCsv(request.headers.accept)) return actions;
    const { columns, rows } = actionCsvRows(actions);
    // Package names and versions come from the SBOM: a cell starting with = + - @ is written with a leading ' (escape_formulas).
    const csv = stringify(rows, { header: true, columns, escape_formulas: true });
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="remediation.csv"').send(csv as never);
  });

  app.get('/orgs/:id/remediation', readRoute({ tags, summary: 'Upgrades across the repositories the caller may read (default branches): the same upgrade once, with every repository needing it', params: IdParams }, Type.Array(OrgActionSchema)),
    async (request) => (await remediation.organization(request.actor!, request.params.id)).map(presentOrgAction));
};

function wantsCsv(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((type) => type.trim().toLowerCase().startsWith('text/csv'));
}

