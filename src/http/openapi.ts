import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ProblemSchema } from './problem.js';
import { GenericFindingsSchema } from '../scans/parsers/findings/generic.js';
import { GENERIC_FINDINGS_COMPONENT, UPLOAD_PATH, uploadRequestBody } from '../scans/upload-doc.js';

export const SESSION_SCHEME = 'session';
export const BEARER_SCHEME = 'apiKey';

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

/** Must be registered before any route, so that every route lands in the document. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, hidden });
  });
  app.addSchema(ProblemSchema);
  app.addSchema({ ...GenericFindingsSchema, $id: GENERIC_FINDINGS_COMPONENT, title: 'Scanyard generic findings format' });
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
    transformObject: (document) => ('openapiObject' in document ? withUploadBody(document.openapiObject as OpenApiDocument) : document.swaggerObject),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/swagger' });
  const hide = { hide: true };
  app.get('/swagger/doc.json', { schema: hide, config: { auth: 'none' } }, async () => app.swagger());
  app.get('/swagger/swagger.yaml', { schema: hide, config: { auth: 'none' } }, async (_request, reply) =>
    reply.type('application/yaml').send(app.swagger({ yaml: true })),
  );
  app.get('/swagger/index.html', { schema: hide, config: { auth: 'none' } }, async (_request, reply) =>
    reply.redirect('/swagger/'),
  );
}

type OpenApiDocument = { paths?: Record<string, Record<string, Record<string, unknown>>> };

/** The upload route streams its body, so its request body is described here rather than by a schema. */
function withUploadBody(document: OpenApiDocument): OpenApiDocument {
  const post = document.paths?.[UPLOAD_PATH]?.post;
  if (post) post.requestBody = uploadRequestBody;
  return document;
}
