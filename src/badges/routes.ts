import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../services.js';
import { created, problems } from '../http/responses.js';
import { BadgeParams, BadgeQuery, BadgeTokenSchema } from './schema.js';
import { presentBadgeToken } from './presenter.js';

const tags = ['badges'];
const SVG = { description: 'An SVG badge.', content: { 'image/svg+xml': { schema: Type.String() } } };

export const badgeTokenRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.post('/repos/:id/badge-token', {
    schema: {
      tags, summary: "Create or rotate the repository's badge token (owners); shown once",
      params: Type.Object({ id: Type.String() }),
      response: { 201: created(BadgeTokenSchema, 'The new token; the previous one stops working.'), ...problems(401, 403, 404) },
    },
  }, async (request, reply) => {
    const { token, createdAt } = await services.badgeService.rotateToken(request.actor!, request.params.id, request.ip);
    return reply.code(201).header('location', `/badge/${request.params.id}/gate.svg`).send(presentBadgeToken(request.params.id, token, createdAt));
  });
};

/** Outside /api: a README embeds them with the token in the URL, no session, no key. */
export const badgeRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const badges = services.badgeService;
  const send = (svg: string) => ({ svg, headers: { 'content-type': 'image/svg+xml; charset=utf-8', 'cache-control': 'max-age=300' } });

  const kinds = {
    findings: { summary: 'Open findings of a repository, coloured by the worst severity', svg: badges.findingsSvg },
    gate: { summary: "A repository's gate now: passing, warning or failing", svg: badges.gateSvg },
  };
  for (const [kind, { summary, svg: render }] of Object.entries(kinds)) {
    app.get(`/badge/:repo_id/${kind}.svg`, {
      config: { auth: 'none' },
      schema: { tags, summary, params: BadgeParams, querystring: BadgeQuery, response: { 200: SVG, ...problems(400, 404) } },
    }, async (request, reply) => {
      const { svg, headers } = send(await render(request.params.repo_id, request.query.token));
      return reply.headers(headers).send(svg);
    });
  }
};
