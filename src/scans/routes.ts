import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { PageQuery, pageOf as toPage, sendPage } from '../http/pagination.js';
import { pageOf, problems } from '../http/responses.js';
import { ComponentSchema, FindingSchema, StatusSchema, UploadSchema, presentComponent, presentFinding, presentStatus, presentUpload } from './presenters.js';
import { receiveUpload } from './upload-body.js';
import { UploadQuery } from './routes-schema.js';

const tags = ['scans'];
const RepoParams = Type.Object({ id: Type.String() });
export const scanRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const scans = services.scans.service;
  await app.register(uploadRoute, { services });

  app.get('/uploads/:id', {
    schema: { tags, summary: 'Get an upload and its processing result', params: RepoParams, response: { 200: UploadSchema, ...problems(401, 404) } },
  }, async (request) => presentUpload(await scans.visibleUpload(request.actor!, request.params.id)));

  app.get('/repos/:id/uploads', {
    schema: { tags, summary: "A repository's uploads, newest first", params: RepoParams, querystring: PageQuery, response: { 200: pageOf(UploadSchema, 'Uploads, newest first.'), ...problems(400, 401, 404) } },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { total, items } = await scans.uploads(request.actor!, request.params.id, page);
    return sendPage(request, reply, page, total, items.map(presentUpload));
  });

  app.get('/repos/:id/status', {
    schema: { tags, summary: 'The scan status of a repository', params: RepoParams, response: { 200: StatusSchema, ...problems(401, 404) } },
  }, async (request) => {
    const { row, analyses } = await scans.status(request.actor!, request.params.id);
    return presentStatus(request.params.id, row, analyses);
  });

  app.get('/repos/:id/findings', {
    schema: {
      tags, summary: "A repository's findings, most severe first", params: RepoParams,
      querystring: Type.Intersect([PageQuery, Type.Object({
        state: Type.Optional(Type.Enum(['open', 'fixed', 'all'], { default: 'open' })),
        severity: Type.Optional(Type.Enum(['critical', 'high', 'medium', 'low', 'info'])),
        tool: Type.Optional(Type.String({ maxLength: 200 })),
        q: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the rule id, message or file path.' })),
      })]),
      response: { 200: pageOf(FindingSchema, 'Findings.'), ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { state = 'open', severity, tool, q } = request.query;
    const { total, items } = await scans.findings(request.actor!, request.params.id, { state, severity, tool, q }, page);
    return sendPage(request, reply, page, total, items.map(presentFinding));
  });

  app.get('/repos/:id/components', {
    schema: {
      tags, summary: "A repository's components (from its SBOMs)", params: RepoParams,
      querystring: Type.Intersect([PageQuery, Type.Object({ q: Type.Optional(Type.String({ maxLength: 200, description: 'Substring of the name or purl.' })) })]),
      response: { 200: pageOf(ComponentSchema, 'Components, by name.'), ...problems(400, 401, 404) },
    },
  }, async (request, reply) => {
    const page = toPage(request.query);
    const { total, items } = await scans.components(request.actor!, request.params.id, request.query.q, page);
    return sendPage(request, reply, page, total, items.map(presentComponent));
  });
};

/** Its own scope: the body is read here as a stream, whatever its content type, never parsed by Fastify. */
const uploadRoute: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
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
      params: RepoParams,
      querystring: UploadQuery,
      response: {
        202: { description: 'Stored; it will be processed. Location names the upload.', headers: { Location: { schema: { type: 'string' } } }, content: { 'application/json': { schema: UploadSchema } } },
        ...problems(400, 401, 403, 404, 413, 415),
      },
    },
  }, async (request, reply) => {
    const repo = await services.scans.service.repoForUpload(request.actor!, request.params.id);
    const received = await receiveUpload(request, limit);
    const upload = await services.scans.service.accept(request.actor!, repo.id, received, request.query);
    return reply.code(202).header('location', `/api/v1/uploads/${upload.id}`).send(presentUpload(upload));
  });
};
