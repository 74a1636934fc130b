import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/index.js';

const Health = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['health'];
  app.get('/healthz', {
    schema: { tags, summary: 'The process is up', response: { 200: Health } },
    config: { auth: 'none', anyHost: true },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    schema: {
      tags,
      summary: 'The database answers and its migrations are applied',
      response: { 200: Health, 503: Health },
    },
    config: { auth: 'none', anyHost: true },
  }, async (_request, reply) => {
    const ready = await db.isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'database unavailable' });
  });
};
