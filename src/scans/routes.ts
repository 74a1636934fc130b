import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Value } from 'typebox/value';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { problems } from '../http/responses.js';
import { listRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { TEXT_FAULT, textFaults } from '../http/validation.js';
import { badRequest } from '../problem.js';
import { OrgUploadQuery, UploadQuery, UploadSchema, UploadsQuery, UploadWaitQuery } from './schema.js';
import { presentUpload } from './presenter.js';
import { receiveUpload, type UploadContext } from '../bodies/upload-body.js';

const tags = ['scans'];

export const scanRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const scans = services.scans.service;
  await app.register(uploadRoute, { services });
  await app.register(orgUploadRoute, { services });

  app.get('/uploads/:id', {
    config: { ciToken: true },
    schema: {
      tags, summary: 'Get an upload and its processing result (optionally waiting for it)', params: IdParams, querystring: UploadWaitQuery,
      response: { 200: UploadSchema, ...problems(400, 401, 404) },
    },
  }, async (request) => presentUpload(await scans.settledUpload(request.actor!, request.params.id, request.query.wait ?? 0, request.log)));

  app.get('/repos/:id/uploads', listRoute({ tags, summary: "A repository's uploads, newest first (one ref's with ?ref=)", params: IdParams, querystring: UploadsQuery }, UploadSchema, 'Uploads, newest first.', 404),
    (request, reply) => replyPage(request, reply, (page) => scans.uploads(request.actor!, request.params.id, request.query.ref, page), presentUpload));

};

/** Its own scope: the body is read here as a stream, whatever its content type, never parsed by Fastify. */
const uploadRoute: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const scans = services.scans.service;
  const limit = services.config.maxUploadBytes;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 10 } });

  app.post('/repos/:id/upload', {
    config: { scope: 'upload', ciToken: true },
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

/** Upload to a repository named by its forge full name: a linked org finds it on the forge when no pass has brought it yet. */
const orgUploadRoute: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const scans = services.scans.service;
  const limit = services.config.maxUploadBytes;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: limit, files: 1, fields: 10 } });

  app.post('/orgs/:id/upload', {
    config: { scope: 'upload' },
    bodyLimit: limit,
    schema: {
      tags,
      summary: 'Upload to a repository of the organization named by ?repo= (its forge full name when the organization follows a forge)',
      params: IdParams,
      querystring: OrgUploadQuery,
      response: {
        202: { description: 'Stored; it will be processed. Location names the upload.', headers: { Location: { schema: { type: 'string' } } }, content: { 'application/json': { schema: UploadSchema } } },
        ...problems(400, 401, 403, 404, 409, 413, 415, 502),
      },
    },
  }, async (request, reply) => {
    const { repo: repoName, ...query } = request.query;
    const repoId = await services.forge.service.repoIdForUpload(request.actor!, request.params.id, repoName);
    const repo = await scans.repoForUpload(request.actor!, repoId);
    const received = await receiveUpload(request, limit, services.scans.documents);
    let upload;
    try {
      upload = await scans.accept(request.actor!, repo, received, uploadContext(received.fields, query));
    } finally {
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
