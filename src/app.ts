import type { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { registerErrorHandling } from './http/errors.js';
import { HttpProblem } from './problem.js';
import { registerValidation } from './http/validation.js';
import { registerJsonBodies } from './http/json-body.js';
import { connectionOptions, registerTurnWrites } from './http/connection.js';
import { registerRequestTargetCheck } from './http/request-target.js';
import { registerNoSniff } from './http/security-headers.js';
import { loggerOptions } from './http/logging.js';
import { requestId } from './http/request-id.js';
import { registerOpenApi } from './http/openapi.js';
import { healthRoutes } from './http/health.js';
import { registerSessionCookie } from './auth/session.js';
import { registerGuard } from './auth/guard.js';
import { ciExchangeRoutes, ciTrustRoutes } from './ci-identity/routes.js';
import { CI_TOKEN_PREFIX } from './ci-identity/service.js';
import { scimRoutes, scimTokenRoutes } from './scim/routes.js';
import { createServices, type Services } from './services.js';
import { authRoutes } from './auth/routes.js';
import { meRoutes, userSearchRoutes } from './users/routes.js';
import { apiKeyRoutes } from './apikeys/routes.js';
import { orgRoutes } from './orgs/routes.js';
import { memberRoutes } from './orgs/members-routes.js';
import { repoRoutes } from './repos/routes.js';
import { teamRoutes } from './teams/routes.js';
import { version } from './version.js';
import { webUi } from './http/static.js';
import { scanRoutes } from './scans/routes.js';
import { resultRoutes } from './results/routes.js';
import { refRoutes } from './refs/routes.js';
import { uploadDocumentation } from './scans/upload-doc.js';
import { VulnerabilityGroupComponent } from './results/schema.js';
import { auditRoutes } from './audit/routes.js';
import { analysisRoutes } from './analyses/routes.js';
import { findingRoutes } from './findings/routes.js';
import { vexRoutes } from './vex/routes.js';
import { suppressionRoutes } from './suppressions/routes.js';
import { gateRoutes } from './gates/routes.js';
import { metricsRoutes } from './metrics/routes.js';
import { badgeRoutes, badgeTokenRoutes } from './badges/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { verdictRoutes } from './verdicts/routes.js';
import { advisoryRoutes } from './advisories/routes.js';
import { componentRoutes } from './components/routes.js';
import { remediationRoutes } from './remediation/routes.js';
import { forgeHookRoutes, forgeRoutes } from './forge/routes.js';
import { startAdvisorySync } from './advisories/sync.js';
import { advisorySyncOptions } from './services.js';
import { createMetrics, registerMetrics } from './http/metrics.js';
import { registerRateLimit } from './http/rate-limit.js';
import { startMaintenance } from './maintenance.js';

export interface AppOptions {
  config: Config;
  db: Db;
  sessionSecret: string;
  /** Tests pass false to keep the output quiet, or a stream to read what is logged. */
  logger?: boolean | { stream: Writable };
  /** Ingest workers (in their thread); defaults to SERVICE_WORKERS. Tests pass 0 and drain the queue themselves. */
  workers?: number;
}

export type App = FastifyInstance;

/** The whole HTTP service, without listening, so tests can inject requests. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config, db } = options;
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.logLevel, options.logger === true || options.logger === undefined ? undefined : options.logger.stream),
    genReqId: requestId,
    // Forwarded headers name the client only when they come from a proxy we were told about.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Answered below as a problem, like every other error.
    return503OnClosing: false,
    ...connectionOptions(config.requestTimeoutMs),
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerRequestTargetCheck(app, { onlyHostOf: config.devLogin ? config.baseUrl : null });
  registerNoSniff(app);
  registerTurnWrites(app);

  // Once closing, answers ask keep-alive clients to hang up: a connection that goes idle after
  // close began would otherwise hold the process open until its keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new HttpProblem(503, 'This instance is shutting down; send the request again (to another instance).');
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  registerJsonBodies(app);
  registerValidation(app);
  registerErrorHandling(app);
  await registerOpenApi(app, version, { ...uploadDocumentation, schemas: [...uploadDocumentation.schemas, VulnerabilityGroupComponent] });
  await registerSessionCookie(app, options.sessionSecret, config.baseUrl);

  const services = createServices(config, db, options.sessionSecret);
  app.decorate('services', services);
  const signInProviders = config.providers.length + config.oidcProviders.length + config.samlProviders.length;
  const guard = registerGuard(app, {
    sessions: services.sessions, apiKeys: services.apiKeys, keyActors: services.keyActors, admins: services.admins, baseUrl: config.baseUrl,
    localUsersDisabled: signInProviders > 0,
    ciTokens: { prefix: CI_TOKEN_PREFIX, actorOf: (token) => services.ciIdentity.actorOf(token) },
  });
  if (signInProviders > 0) {
    app.addHook('onReady', async () => {
      if (await services.users.hasLocalUser()) {
        app.log.warn('a sign-in provider is configured: the local dev user can no longer act (its sessions and API keys are refused)');
      }
    });
  }
  await registerRateLimit(app, config.rateLimit, config.redisUrl);
  guard.enforce();
  const metrics = createMetrics(() => services.scans.uploads.queueStats());
  services.scans.events.accepted = (format) => {
    metrics.uploadReceived(format);
    services.verdicts.wake();
  };
  // An upload's end wrote its webhook deliveries: this instance's delivery workers send them at once.
  services.scans.events.completed = (format, seconds) => {
    metrics.uploadCompleted(format, seconds);
    services.webhooks.wake();
    services.verdicts.wake();
  };
  services.scans.events.failed = (format) => {
    metrics.uploadFailed(format);
    services.webhooks.wake();
    services.verdicts.wake();
  };
  await registerMetrics(app, metrics, config.metricsToken);

  await app.register(healthRoutes, { db });
  await app.register(authRoutes, { config, services });
  await app.register(ciExchangeRoutes, { services });
  const apiRoutes = [
    meRoutes, apiKeyRoutes, orgRoutes, memberRoutes, repoRoutes, teamRoutes, userSearchRoutes, scanRoutes, resultRoutes, refRoutes,
    auditRoutes, analysisRoutes, findingRoutes, vexRoutes, suppressionRoutes, gateRoutes, metricsRoutes, badgeTokenRoutes, webhookRoutes, advisoryRoutes,
    componentRoutes, ciTrustRoutes, remediationRoutes, forgeRoutes, verdictRoutes, scimTokenRoutes,
  ];
  for (const routes of apiRoutes) await app.register(routes, { prefix: '/api/v1', services });
  await app.register(badgeRoutes, { services });
  await app.register(forgeHookRoutes, { services });
  await app.register(scimRoutes, { prefix: '/scim/v2', services, baseUrl: config.baseUrl });
  // Last: its wildcard serves the web UI for whatever no route above answers.
  await app.register(webUi);

  const workers = options.workers ?? config.workers;
  const stopMaintenance = workers > 0 ? startMaintenance(services, app.log) : () => undefined;
  // Workers start once the server listens, so a backlog never delays the first answer.
  let stopSync: () => Promise<void> = async () => undefined;
  app.addHook('onListen', async () => {
    services.scans.startWorkers(workers, app.log);
    services.webhooks.startWorkers(workers, app.log);
    if (workers > 0) services.forge.startWorkers(app.log);
    services.verdicts.startWorkers(workers, app.log);
    // Instances with workers fetch advisory sources; a lease per source keeps it to one at a time.
    if (workers > 0 && config.advisorySources.length > 0) {
      stopSync = startAdvisorySync(db.kysely, config.advisorySources, config.advisorySyncMs, advisorySyncOptions(config), app.log);
    }
  });
  // On close: stop claiming at once, let the upload in hand finish, then the database may close.
  let workersStopped: Promise<void> = Promise.resolve();
  app.addHook('preClose', async () => {
    stopMaintenance();
    await stopSync();
    await services.scans.settlements.close();
    workersStopped = Promise.all([services.scans.stopWorkers(), services.webhooks.stopWorkers(), services.forge.stopWorkers(), services.verdicts.stopWorkers()]).then(() => undefined);
  });
  app.addHook('onClose', async () => workersStopped);
  return app;
}

/** A hop count: the nearest n addresses of X-Forwarded-For are our proxies (Fastify's numeric trustProxy, typed). */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
