import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { problems } from '../http/responses.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { PolicyDocument, RepoGateSchema, RepoPolicyDocument } from './schema.js';
import { presentRepoGate } from './presenter.js';

const tags = ['gates'];
const Params = Type.Object({ id: Type.String() });

export const gateRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const gates = services.gateService;

  app.get('/orgs/:id/policy', {
    schema: { tags, summary: "An organization's policy (empty when none was set)", params: Params, response: { 200: PolicyDocument, ...problems(401, 404) } },
  }, async (request) => gates.orgPolicy(request.actor!, request.params.id));

  app.put('/orgs/:id/policy', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: "Replace an organization's policy (owners)", params: Params, body: PolicyDocument,
      response: { 200: PolicyDocument, ...problems(400, 401, 403, 404, 413, 415) },
    },
  }, async (request) => gates.setOrgPolicy(request.actor!, request.params.id, request.body, request.ip));

  app.get('/repos/:id/policy', {
    schema: {
      tags, summary: 'A repository\'s own policy, or {"inherit": true} when it follows its organization\'s', params: Params,
      response: { 200: RepoPolicyDocument, ...problems(401, 404) },
    },
  }, async (request) => gates.repoPolicy(request.actor!, request.params.id));

  app.put('/repos/:id/policy', {
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, summary: 'Give a repository its own policy, or {"inherit": true} to follow its organization\'s (owners)', params: Params,
      body: RepoPolicyDocument, response: { 200: RepoPolicyDocument, ...problems(400, 401, 403, 404, 413, 415) },
    },
  }, async (request) => gates.setRepoPolicy(request.actor!, request.params.id, request.body, request.ip));

  app.get('/repos/:id/gate', {
    config: { ciToken: true },
    schema: { tags, summary: 'Judge the repository against its policy now', params: Params, response: { 200: RepoGateSchema, ...problems(401, 404) } },
  }, async (request) => presentRepoGate(await gates.repoGate(request.actor!, request.params.id)));
};
