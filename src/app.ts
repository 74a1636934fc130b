import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { registerErrorHandling } from './http/errors.js';
import { registerValidation } from './http/validation.js';
import { loggerOptions } from './http/logging.js';
import { requestId } from './http/request-id.js';
import { registerOpenApi } from './http/openapi.js';
import { healthRoutes } from './http/health.js';
import { registerSessionCookie } from './auth/session.js';
import { registerGuard } from './auth/guard.js';
import { createServices, type Services } from './services.js';
import { authRoutes } from './auth/routes.js';
import { meRoutes } from './users/routes.js';
import { apiKeyRoutes } from './apikeys/routes.js';
import { version } from './version.js';

export interface AppOptions {
  config: Config;
  db: Db;
  sessionSecret: string;
  /** Tests pass false to keep the output quiet. */
  logger?: boolean;
}

export type App = FastifyInstance;

/** The whole HTTP service, without listening, so tests can inject requests. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config, db } = options;
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.logLevel),
    genReqId: requestId,
    trustProxy: true,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerValidation(app);
  registerErrorHandling(app);
  await registerOpenApi(app, version);
  await registerSessionCookie(app, options.sessionSecret, config.baseUrl);

  const services = createServices(config, db);
  app.decorate('services', services);
  registerGuard(app, { sessions: services.sessions, apiKeys: services.apiKeys, admins: config.admins, baseUrl: config.baseUrl });

  await app.register(healthRoutes, { db });
  await app.register(authRoutes, { config, services });
  await app.register(meRoutes, { prefix: '/api/v1', services });
  await app.register(apiKeyRoutes, { prefix: '/api/v1', services });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
