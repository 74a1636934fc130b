import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { registeredRoutes } from '../../src/http/openapi.js';

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  security?: unknown[];
  responses: Record<string, { description: string; headers?: Record<string, { schema: { type?: string } }>; content?: Record<string, { schema: { $ref?: string } }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; in?: string; scheme?: string }> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** The resources of issue 4: orgs and what hangs off them. */
const ORG_PATHS = /^\/api\/v1\/(orgs|repos|teams)(\/|$)/;

describe.each(DB_KINDS)('OpenAPI document on %s', (kind) => {
  let t: TestApp;
  let doc: Document;
  const operations = () => Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => METHODS.includes(method)).map(([method, op]) => ({ path, method, op })));

  beforeAll(async () => {
    t = await createTestApp(kind);
    const res = await t.request({ url: '/swagger/doc.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json<Document>();
  });
  afterAll(() => t.close());

  it('is served as JSON and YAML without authentication, the same document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const yaml = await t.request({ url: '/swagger/swagger.yaml' });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers['content-type']).toContain('yaml');
    expect(parseYaml(yaml.body)).toEqual(doc);
  });

  it('has Swagger UI behind /swagger/index.html', async () => {
    const entry = await t.request({ url: '/swagger/index.html' });
    expect(entry.statusCode).toBe(302);
    const ui = await t.request({ url: entry.headers.location as string });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toContain('text/html');
    expect(ui.body).toContain('swagger-ui');
  });

  it('passes a real OpenAPI validator', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('documents every route the server registers, with its method', () => {
    const routes = registeredRoutes(t.app).filter((r) => !r.hidden && r.method !== 'HEAD' && r.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThan(20);
    const missing = routes
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      .filter((key) => {
        const [method, path] = key.split(' ') as [string, string];
        return !doc.paths[path]?.[method.toLowerCase()];
      });
    expect(missing).toEqual([]);
    for (const route of ['GET /api/v1/orgs', 'DELETE /api/v1/orgs/{id}/members/{user_id}', 'GET /auth/callback', 'POST /auth/dev-login']) {
      const [method, path] = route.split(' ') as [string, string];
      expect(doc.paths[path]?.[method.toLowerCase()], route).toBeDefined();
    }
  });

  it('declares both security schemes and the Problem schema', () => {
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie' });
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.Problem).toMatchObject({ type: 'object', required: expect.arrayContaining(['status', 'title', 'detail']) });
  });

  it('gives every operation a summary and tags, and API problems as application/problem+json', () => {
    for (const { path, method, op } of operations()) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(op.summary, name).toBeTruthy();
      expect(op.tags?.length, name).toBeGreaterThan(0);
      // /readyz answers 503 with its own health body, on purpose.
      if (!path.startsWith('/api/') && !path.startsWith('/auth/')) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/problem+json']?.schema.$ref, `${name} ${status}`).toBe('#/components/schemas/Problem');
      }
    }
  });

  it('documents 401 on every /api/v1 operation, and 400, 413, 415 wherever orgs, repos, teams or members take a body', () => {
    for (const { path, method, op } of operations()) {
      const name = `${method.toUpperCase()} ${path}`;
      if (path.startsWith('/api/v1/')) expect(Object.keys(op.responses), name).toContain('401');
      if (op.requestBody && ORG_PATHS.test(path)) {
        expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['400', '413', '415']));
      }
    }
  });

  it('documents the pagination parameters and headers on every list', () => {
    const lists = operations().filter(({ op }) => op.parameters?.some((p) => p.in === 'query' && p.name === 'per_page'));
    expect(lists.map(({ path }) => path)).toEqual(expect.arrayContaining([
      '/api/v1/orgs', '/api/v1/orgs/{org_id}/repos', '/api/v1/orgs/{org_id}/teams', '/api/v1/orgs/{id}/members',
    ]));
    for (const { path, op } of lists) {
      expect(op.parameters?.map((p) => p.name), path).toEqual(expect.arrayContaining(['page', 'per_page']));
      const headers = op.responses['200']?.headers ?? {};
      expect(headers['X-Total-Count']?.schema.type, path).toBe('integer');
      expect(headers['X-Page']?.schema.type, path).toBe('integer');
      expect(headers['X-Per-Page']?.schema.type, path).toBe('integer');
      expect(headers.Link?.schema.type, path).toBe('string');
    }
  });

  it('documents Location on every 201 of orgs, repos, teams and members', () => {
    for (const { path, method, op } of operations()) {
      if (op.responses['201'] && ORG_PATHS.test(path)) expect(op.responses['201'].headers?.Location, `${method} ${path}`).toBeDefined();
    }
  });
});
