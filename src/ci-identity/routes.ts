import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { replyPage } from '../http/pagination.js';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { problems } from '../http/responses.js';
import { createRoute, deleteRoute, listRoute, readRoute, updateRoute } from '../http/route-options.js';
import { IdParams } from '../http/schemas.js';
import { HttpProblem } from '../problem.js';
import { DefaultRuleBody, DefaultRuleSchema, ExchangeBody, ExchangedSchema, TrustRuleBody, TrustRuleParams, TrustRuleSchema } from './schema.js';
import { presentTrustRule } from './presenter.js';
import { CiRefusal } from './verify.js';

const tags = ['ci'];

/** Trust rules under /api/v1 (members read, owners manage). */
export const ciTrustRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ci = services.ciIdentity;

  app.get('/orgs/:id/ci-trust', listRoute({ tags, summary: "An organization's CI trust rules (which pipelines may upload without a key), newest first", params: IdParams }, TrustRuleSchema, 'Trust rules.', 404),
    (request, reply) => replyPage(request, reply, (page) => ci.rules(request.actor!, request.params.id, page), presentTrustRule));

  app.post('/orgs/:id/ci-trust', createRoute({ tags, summary: 'Trust a CI pipeline to upload without a key (owners)', params: IdParams, body: TrustRuleBody }, TrustRuleSchema, 404),
    async (request, reply) => {
      const { body } = request;
      const rule = await ci.create(request.actor!, request.params.id, {
        issuer: body.issuer, repository: body.repository, ref: body.ref ?? null, event: body.event ?? null,
        environment: body.environment ?? null, targetRepoId: body.target_repo_id ?? null,
      }, request.ip);
      return reply.code(201).header('location', `/api/v1/orgs/${rule.org_id}/ci-trust/${rule.id}`).send(presentTrustRule(rule));
    });

  app.delete('/orgs/:id/ci-trust/:rule_id', deleteRoute({ tags, summary: 'Remove a CI trust rule (owners)', params: TrustRuleParams }),
    async (request, reply) => {
      await ci.remove(request.actor!, request.params.id, request.params.rule_id, request.ip);
      return reply.code(204).send(null);
    });

  app.get('/orgs/:id/ci-trust/default-rule', readRoute({ tags, summary: "Whether a forge-linked organization's repositories accept uploads from their own pipelines", params: IdParams }, DefaultRuleSchema),
    async (request) => ci.defaultRule(request.actor!, request.params.id));

  app.put('/orgs/:id/ci-trust/default-rule', updateRoute({ tags, summary: 'Turn the default CI rule on or off (owners)', params: IdParams, body: DefaultRuleBody }, DefaultRuleSchema),
    async (request) => ci.setDefaultRule(request.actor!, request.params.id, request.body.enabled, request.ip));
};

/** The exchange, beside sign-in under /auth/ (its rate limit per IP): a job token for a short-lived upload token. */
export const ciExchangeRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post('/auth/ci/token', {
    config: { auth: 'none', ownBearer: true },
    bodyLimit: JSON_BODY_LIMIT,
    schema: {
      tags, security: [], body: ExchangeBody,
      summary: "Exchange a CI job's OIDC token for a Scanyard token that uploads to the repositories the org's trust rules allow (15 minutes)",
      response: { 200: ExchangedSchema, ...problems(400, 401, 413, 415) },
    },
  }, async (request) => {
    try {
      const done = await services.ciIdentity.exchange(request.body.token, request.ip);
      return { token: done.token, expires_at: done.expiresAt, repositories: done.repositories, ref: done.ref, commit_sha: done.commitSha };
    } catch (error) {
      if (!(error instanceof CiRefusal)) throw error;
      request.log.info({ reason: error.reason }, 'CI token exchange refused');
      throw new HttpProblem(401, error.message, { reason: error.reason, headers: { 'www-authenticate': 'Bearer' } });
    }
  });
};
