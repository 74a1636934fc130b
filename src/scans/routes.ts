import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Value } from 'typebox/value';
import type { Services } from '../services.js';
import type { Page } from '../db/page.js';
import { replyPage } from '../http/pagination.js';
import { problems } from '../http/responses.js';
import { listRoute, readRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { TEXT_FAULT, textFaults } from '../http/validation.js';
import { badRequest } from '../problem.js';
import { Type } from 'typebox';
import {
  ComponentSchema, ComponentsQuery, FindingSchema, FindingsQuery, StatusQuery, StatusSchema, UploadQuery, UploadSchema, UploadsQuery, UploadWaitQuery,
  VulnerabilityGroupSchema,
} from './schema.js';

const VulnerabilityGroupList = Type.Array(VulnerabilityGroupSchema);
import { presentComponent, presentFinding, presentStatus, presentUpload } from './presenter.js';
import { receiveUpload, type UploadContext } from './upload-body.js';
import { findingsCsv, wantsCsv } from './findings-csv.js';

const tags = ['scans'];

export const scanRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const scans = services.scans.service;
  await app.register(uploadRoute, { services });

  app.get('/uploads/:id', {
    schema: {
      tags, summary: 'Get an upload and its processing result (optionally waiting for it)', params: IdParams, querystring: UploadWaitQuery,
      response: { 200: UploadSchema, ...problems(400, 401, 404) },
    },
  }, async (request) => presentUpload(await scans.settledUpload(request.actor!, request.params.id, request.query.wait ?? 0, request.log)));

  app.get('/repos/:id/uploads', listRoute({ tags, summary: "A repository's uploads, newest first (one ref's with ?ref=)", params: IdParams, querystring: UploadsQuery }, UploadSchema, 'Uploads, newest first.', 404),
    (request, reply) => replyPage(request, reply, (page) => scans.uploads(request.actor!, request.params.id, request.query.ref, page), presentUpload));

  app.get('/repos/:id/status', readRoute({ tags, summary: 'The scan status of a repository: its default branch, or another ref with ?ref=', params: IdParams, querystring: StatusQuery }, StatusSchema, 400),
    async (request) => {
      const { ref, baseRef, row, analyses } = await scans.status(request.actor!, request.params.id, request.query.ref);
      return presentStatus(request.params.id, ref, baseRef, row, analyses);
    });

  app.get('/repos/:id/findings', withCsv(listRoute({ tags, summary: "A repository's findings, most severe first; with Accept: text/csv every matching finding (all pages) as CSV", params: IdParams, querystring: FindingsQuery }, FindingSchema, 'Findings.', 404)),
    async (request, reply) => {
      const { severity, tool, q, ref, vs_base: vsBase, introduced_in: introducedIn, fixed_in: fixedIn, reopened_in: reopenedIn, kev, sort, group } = request.query;
      if (group === 'vulnerability') {
        const alone = (['q', 'vs_base', 'introduced_in', 'fixed_in', 'reopened_in', 'kev', 'sort'] as const).filter((name) => request.query[name] !== undefined);
        if (alone.length > 0) throw badRequest(`group=vulnerability filters by state, severity and tool only; leave out ${alone.join(', ')}.`, alone.map((name) => ({ path: `/${name}`, message: 'must be absent with group' })));
        // The route's schema serialises findings; a group has its own (VulnerabilityGroup in the OpenAPI document).
        reply.serializer(reply.compileSerializationSchema(VulnerabilityGroupList as unknown as Record<string, unknown>));
        const filters = { state: request.query.state ?? 'open', severity, tool };
        return replyPage(request, reply, (page) => scans.vulnerabilities(request.actor!, request.params.id, ref, filters, page), (g) => g) as never;
      }
      // What an upload changed is asked about whatever happened to those findings since.
      const state = request.query.state ?? (introducedIn || fixedIn || reopenedIn ? 'all' : 'open');
      const filters = { state, severity, tool, q, introducedIn, fixedIn, reopenedIn, kev, sort };
      const load = (page: Page) => scans.findings(request.actor!, request.params.id, ref, filters, vsBase, page);
      if (wantsCsv(request)) {
        const csv = await findingsCsv(load, presentFinding);
        // The typed reply knows the JSON body only; the CSV body is a stream, which Fastify sends as it comes.
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="findings.csv"').send(csv as never);
      }
      return replyPage(request, reply, load, presentFinding);
    });

  app.get('/repos/:id/components', listRoute({ tags, summary: "A repository's components (from its SBOMs)", params: IdParams, querystring: ComponentsQuery }, ComponentSchema, 'Components, by name.', 404),
    (request, reply) => replyPage(request, reply, (page) => scans.components(request.actor!, request.params.id, request.query.ref, request.query.q, page), presentComponent));
};

/** Its own scope: the body is read here as a stream, whatever its content type, never parsed by Fastify. */
const uploadRoute: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const scans = services.scans.service;
  const limit = services.config.maxUploadBytes;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 10 } });

  app.post('/repos/:id/upload', {
    config: { scope: 'upload' },
    bodyLimit: limit,
    schema: {
      tags,
      summary: 'Upload a SARIF, CycloneDX, SPDX or findings document (optionally gzip-compressed, or as the "file" part of a multipart form)',
      params: IdParams,
      querystring: UploadQuery,
      response: {
        202: { description: 'Stored; it will be processed. Location names the upload.', headers: { Location: { schema: { type: 'string' } } }, content: { 'application/json': { schema: UploadSchema } } },
        ...problems(400, 401, 403, 404, 413, 415),
      },
    },
  }, async (request, reply) => {
    const repo = await scans.repoForUpload(request.actor!, request.params.id);
    const received = await receiveUpload(request, limit, services.scans.documents);
    let upload;
    try {
      upload = await scans.accept(request.actor!, repo, received, uploadContext(received.fields, request.query));
    } finally {
      // Stored (or refused): this thread is done with the document; the ingest thread says so itself.
      received.release();
    }
    return reply.code(202).header('location', `/api/v1/uploads/${upload.id}`).send(presentUpload(upload));
  });
};

/** Multipart fields arrive after Fastify validated the query string, so the two are checked together here. */
function uploadContext(fields: UploadContext, query: UploadContext): UploadContext {
  // The query string's text was checked with the request's; multipart fields are read only now.
  const faults = textFaults(fields, '/fields');
  if (faults.length) throw badRequest(TEXT_FAULT, faults);
  const context = { ...presentOnly(fields), ...presentOnly(query) };
  if (!Value.Check(UploadQuery, context)) {
    const errors = [...Value.Errors(UploadQuery, context)].map((e) => ({ path: `/fields${e.instancePath}`, message: e.message }));
    throw badRequest('The upload context is not valid.', errors);
  }
  return context;
}

/** `ref=$GIT_BRANCH` with the variable unset arrives as "": stored as no ref, not as an empty one. */
function presentOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}

/** The findings list also answers text/csv: declared beside its JSON so the OpenAPI document says so. */
function withCsv<T extends { schema: { response: { 200: { content: Record<string, unknown> } } } }>(options: T): T {
  options.schema.response[200].content['text/csv'] = { schema: { type: 'string', description: 'A header line, then one line per finding (RFC 4180).' } };
  return options;
}
