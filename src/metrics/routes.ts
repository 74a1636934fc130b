import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { IdParams } from '../http/schemas.js';
import { badRequest } from '../problem.js';
import { wantsCsv } from '../results/findings-csv.js';
import { addDays, dayOf, daysBetween, isDay, type Interval } from './days.js';
import type { SeriesQuery as Query } from './service.js';
import { OrgSeriesQuery, OrgSummaryQuery, SeriesQuery, SeriesSchema, SlaBody, SlaSchema, SummaryQuery, SummarySchema } from './schema.js';
import { presentSummary, seriesCsv, summaryCsv } from './presenter.js';

const tags = ['metrics'];
/** Longest series one request answers: ten years of days. */
const MAX_DAYS = 3660;
const DEFAULT_DAYS = 90;

/** The series' range: `to` defaults to yesterday (the last day that has ended), `from` to 90 days before it. */
function seriesQuery(q: { from?: string; to?: string; interval?: Interval; severity?: Query['severity'] }): Query {
  const to = q.to ?? addDays(dayOf(Date.now()), -1);
  const from = q.from ?? addDays(to, -(DEFAULT_DAYS - 1));
  for (const [name, value] of [['from', from], ['to', to]] as const) {
    if (!isDay(value)) throw badRequest(`${name} is not a calendar day (YYYY-MM-DD).`, [{ path: `/${name}`, message: 'must be a day that exists' }]);
  }
  if (from > to) throw badRequest('from is after to.', [{ path: '/from', message: 'must be on or before to' }]);
  if (daysBetween(from, to) >= MAX_DAYS) throw badRequest(`A series spans at most ${MAX_DAYS} days.`, [{ path: '/from', message: `must be within ${MAX_DAYS} days of to` }]);
  return { from, to, interval: q.interval ?? 'day', ...(q.severity ? { severity: q.severity } : {}) };
}

function windowDays(window: string | undefined): number {
  const days = Number((window ?? '90d').slice(0, -1));
  if (days < 1 || days > 36_500) throw badRequest('window is between 1d and 36500d.', [{ path: '/window', message: 'must be 1d to 36500d' }]);
  return days;
}

function csv(request: FastifyRequest, reply: FastifyReply, name: string, body: () => string): boolean {
  if (!wantsCsv(request)) return false;
  void reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`).send(body());
  return true;
}

/** JSON, or CSV with Accept: text/csv: declared beside the JSON so the OpenAPI document says so. */
function withCsv<T>(schema: T) {
  return { 200: { content: { 'application/json': { schema }, 'text/csv': { schema: { type: 'string', description: 'A header line, then one line per row (RFC 4180).' } } } } };
}

export const metricsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const metrics = services.metricsService;

  app.get('/orgs/:id/sla', {
    schema: { tags, summary: "An organization's SLA: days to fix per severity and for KEV-listed findings", params: IdParams, response: { 200: SlaSchema, ...problems(401, 404) } },
  }, async (request) => metrics.sla(request.actor!, request.params.id));

  app.put('/orgs/:id/sla', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: { tags, summary: "Replace an organization's SLA (owners); its policy's max_age_days changes with it", params: IdParams, body: SlaBody, response: { 200: SlaSchema, ...problems(400, 401, 403, 404, 413, 415) } },
  }, async (request) => metrics.setSla(request.actor!, request.params.id, request.body, request.ip));

  app.get('/orgs/:id/metrics', {
    schema: { tags, summary: "An organization's figures over time, from daily snapshots of its repositories' default branches", params: IdParams, querystring: OrgSeriesQuery, response: { ...withCsv(SeriesSchema), ...problems(400, 401, 404) } },
  }, async (request, reply) => {
    const points = await metrics.orgSeries(request.actor!, request.params.id, request.query.team, seriesQuery(request.query));
    return csv(request, reply, 'metrics', () => seriesCsv(points)) ? reply : { points };
  });

  app.get('/orgs/:id/metrics/summary', {
    schema: { tags, summary: "An organization's mean time to remediate, SLA compliance and breached findings now", params: IdParams, querystring: OrgSummaryQuery, response: { ...withCsv(SummarySchema), ...problems(400, 401, 404) } },
  }, async (request, reply) => {
    const summary = await metrics.orgSummary(request.actor!, request.params.id, request.query.team, windowDays(request.query.window));
    return csv(request, reply, 'metrics-summary', () => summaryCsv(summary)) ? reply : presentSummary(summary);
  });

  app.get('/repos/:id/metrics', {
    schema: { tags, summary: "A repository's figures over time (its default branch's daily snapshots)", params: IdParams, querystring: SeriesQuery, response: { ...withCsv(SeriesSchema), ...problems(400, 401, 404) } },
  }, async (request, reply) => {
    const points = await metrics.repoSeries(request.actor!, request.params.id, seriesQuery(request.query));
    return csv(request, reply, 'metrics', () => seriesCsv(points)) ? reply : { points };
  });

  app.get('/repos/:id/metrics/summary', {
    schema: { tags, summary: "A repository's mean time to remediate, SLA compliance and breached findings now", params: IdParams, querystring: SummaryQuery, response: { ...withCsv(SummarySchema), ...problems(400, 401, 404) } },
  }, async (request, reply) => {
    const summary = await metrics.repoSummary(request.actor!, request.params.id, windowDays(request.query.window));
    return csv(request, reply, 'metrics-summary', () => summaryCsv(summary)) ? reply : presentSummary(summary);
  });
};
