import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { receiveUpload } from '../bodies/upload-body.js';
import { replyPage } from '../http/pagination.js';
import { listRoute, readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { Type } from 'typebox';
import { AdvisoryQuery, AdvisorySchema, AdvisorySourceSchema, AdvisorySummarySchema, ImportReportSchema, TopAdvisoryQuery, TopAdvisorySchema } from './schema.js';
import { presentAdvisory, presentAdvisorySummary, presentImportReport, presentSource, presentTopAdvisory } from './presenter.js';

const tags = ['advisories'];

export const advisoryRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const advisories = services.advisoryService;
  const limit = services.config.maxUploadBytes;
  // The body is read as bytes (a zip, or JSON, gzip or not) with the upload limits, not parsed by Fastify.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 0 } });

  app.get('/advisories', listRoute({ tags, summary: 'The advisory database, most recently modified first', querystring: AdvisoryQuery }, AdvisorySummarySchema, 'Advisories.'),
    (request, reply) => replyPage(request, reply, (page) => advisories.list(request.actor!, {
      q: request.query.q, ecosystem: request.query.ecosystem, package: request.query.package,
    }, page), presentAdvisorySummary));

  app.get('/advisories/sources', readRoute({ tags, summary: 'The configured sync sources (SERVICE_ADVISORY_SOURCES) and how each last went (site administrators)' }, Type.Array(AdvisorySourceSchema), 403),
    async (request) => (await advisories.sources(request.actor!)).map(presentSource));

  app.get('/advisories/top', readRoute({
    tags, summary: "The advisories affecting the most of the caller's repositories (open findings), then the most severe", querystring: TopAdvisoryQuery,
  }, Type.Array(TopAdvisorySchema), 400), async (request) => (await advisories.top(request.actor!, request.query.limit ?? 10)).map(presentTopAdvisory));

  app.get('/advisories/:id', readRoute({
    tags, summary: "An advisory by its id or any alias, its affected packages, and the caller's repositories it affects", params: IdParams,
  }, AdvisorySchema), async (request) => presentAdvisory(await advisories.get(request.actor!, request.params.id)));

  app.post('/advisories/import', {
    config: { scope: 'write' },
    bodyLimit: limit,
    schema: {
      tags,
      summary: 'Import OSV advisories: one record, a JSON array of records, or a zip of them such as OSV\'s all.zip (site administrators)',
      response: {
        200: { description: 'What the import did, record by record.', content: { 'application/json': { schema: ImportReportSchema } } },
        ...problems(400, 401, 403, 413),
      },
    },
  }, async (request) => {
    await advisories.mayImport(request.actor!);
    const received = await receiveUpload(request, limit);
    return presentImportReport(await advisories.import(request.actor!, received.content));
  });
};
