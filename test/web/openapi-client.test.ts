/**
 * The web UI calls the API only through openapi-fetch typed by web/src/api/schema.d.ts, which
 * `npm run gen:api` generates from the server's own OpenAPI document. This fails when a route or
 * schema changed and the generated files were not regenerated, i.e. when the UI would be checked
 * against an API that no longer exists. Fix: `npm run gen:api`, then `npx tsc -p web/tsconfig.json`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DIR, generate } from '../../scripts/openapi.js';

let dir: string;
let fresh: { json: string; types: string };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'scanyard-openapi-'));
  fresh = await generate(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the generated API client types', () => {
  it('web/src/api/openapi.json is the document the server publishes now', async () => {
    const committed = await readFile(path.join(API_DIR, 'openapi.json'), 'utf8');
    expect(firstDifference(committed, await readFile(fresh.json, 'utf8')), 'openapi.json is stale: run npm run gen:api').toBeNull();
  });

  it('web/src/api/schema.d.ts is generated from that document', async () => {
    const committed = await readFile(path.join(API_DIR, 'schema.d.ts'), 'utf8');
    expect(firstDifference(committed, await readFile(fresh.types, 'utf8')), 'schema.d.ts is stale: run npm run gen:api').toBeNull();
  });

  it('covers every endpoint the UI calls', async () => {
    const document = JSON.parse(await readFile(fresh.json, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const used: [string, string][] = [
      ['/auth/providers', 'get'], ['/auth/dev-login', 'post'], ['/auth/logout', 'post'], ['/api/v1/me', 'get'],
      ['/api/v1/apikeys', 'get'], ['/api/v1/apikeys', 'post'], ['/api/v1/apikeys/{id}', 'delete'],
      ['/api/v1/orgs', 'post'], ['/api/v1/orgs/{id}', 'get'], ['/api/v1/orgs/{org_id}/repos', 'get'], ['/api/v1/orgs/{org_id}/repos', 'post'],
      ['/api/v1/repos/{id}', 'get'], ['/api/v1/repos/{id}', 'delete'],
      ['/api/v1/orgs/{org_id}/teams', 'get'], ['/api/v1/orgs/{org_id}/teams', 'post'], ['/api/v1/teams/{id}', 'put'], ['/api/v1/teams/{id}', 'delete'],
      ['/api/v1/orgs/{id}/members', 'get'], ['/api/v1/orgs/{id}/members/{user_id}', 'put'], ['/api/v1/orgs/{id}/members/{user_id}', 'delete'],
      ['/api/v1/users', 'get'], ['/api/v1/repos/{id}/status', 'get'], ['/api/v1/repos/{id}/uploads', 'get'],
      ['/api/v1/repos/{id}/findings', 'get'], ['/api/v1/repos/{id}/components', 'get'], ['/api/v1/repos/{id}/upload', 'post'],
      ['/api/v1/uploads/{id}', 'get'], ['/api/v1/orgs/{id}/audit', 'get'], ['/api/v1/audit', 'get'],
      ['/api/v1/repos/{id}/analyses', 'get'], ['/api/v1/repos/{id}/analyses/{analysis_id}', 'delete'],
    ];
    const missing = used.filter(([p, method]) => !document.paths[p]?.[method]).map(([p, method]) => `${method.toUpperCase()} ${p}`);
    expect(missing).toEqual([]);
  });
});

/** Where two texts part, as "line N: committed / generated", or null when they are the same. */
function firstDifference(committed: string, generated: string): string | null {
  if (committed === generated) return null;
  const a = committed.split('\n');
  const b = generated.split('\n');
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i === -1 ? a.length : i;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '(end)')}, generated ${JSON.stringify(b[at] ?? '(end)')}`;
}
