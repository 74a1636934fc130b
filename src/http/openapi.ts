import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from 'typebox';
import { ProblemSchema } from './problem.js';
import { SWAGGER_UI_CSP, securityHeaders } from './security-headers.js';

const SESSION_SCHEME = 'session';
const BEARER_SCHEME = 'apiKey';

export interface RegisteredRoute {
  method: string;
  url: string;
  /** Left out of the document on purpose (Swagger UI and its files). */
  hidden: boolean;
}
const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered after registerOpenApi, so a test can check that the document covers them all. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/**
 * What route schemas cannot say: shared schemas published under their $id, and the request bodies
 * of routes that stream their body instead of letting Fastify parse it, by OpenAPI path.
 */
export interface DocumentExtras {
  schemas: TSchema[];
  requestBodies: Record<string, unknown>;
}

/** Must be registered before any route, so that every route lands in the document. */
export async function registerOpenApi(app: FastifyInstance, version: string, extras: DocumentExtras): Promise<void> {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, hidden });
  });
  app.addSchema(ProblemSchema);
  for (const schema of extras.schemas) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Scanyard API',
        version,
        description: 'Security scan results (SBOM, SARIF, findings) of every repository in one place. '
          + 'Errors are RFC 9457 application/problem+json. Lists take page and per_page and answer '
          + 'with X-Total-Count, X-Page, X-Per-Page and Link headers.',
      },
      components: {
        securitySchemes: {
          [SESSION_SCHEME]: { type: 'apiKey', in: 'cookie', name: 'scanyard_session', description: 'Browser session, set by sign-in.' },
          [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'An API key (syd_...) created in Settings.' },
        },
      },
      security: [{ [SESSION_SCHEME]: [] }, { [BEARER_SCHEME]: [] }],
    },
    transformObject: (document) => ('openapiObject' in document ? withRequestBodies(document.openapiObject as OpenApiDocument, extras.requestBodies) : document.swaggerObject),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  // Swagger UI is a page of ours like the web UI: a CSP on each of its files, so it cannot be framed
  // (nosniff is on every response of the app).
  await app.register(swaggerUi, { routePrefix: '/swagger', staticCSP: SWAGGER_UI_CSP });
  const hide = { hide: true };
  app.get('/swagger/doc.json', { schema: hide, config: { auth: 'none' } }, async (_request, reply) =>
    securityHeaders(reply, SWAGGER_UI_CSP).send(app.swagger()),
  );
  app.get('/swagger/swagger.yaml', { schema: hide, config: { auth: 'none' } }, async (_request, reply) =>
    securityHeaders(reply, SWAGGER_UI_CSP).type('application/yaml').send(app.swagger({ yaml: true })),
  );
  app.get('/swagger/index.html', { schema: hide, config: { auth: 'none' } }, async (_request, reply) =>
    reply.redirect('/swagger/'),
  );
}

type OpenApiDocument = { paths?: Record<string, Record<string, Record<string, unknown>>> };

function withRequestBodies(document: OpenApiDocument, bodies: Record<string, unknown>): OpenApiDocument {
  for (const [path, body] of Object.entries(bodies)) {
    const post = document.paths?.[path]?.post;
    if (post) post.requestBody = body;
  }
  return document;
}
