/**
 * Writes the OpenAPI document of the current server to web/src/api/openapi.json and the TypeScript
 * types the web client is checked against to web/src/api/schema.d.ts, so the UI cannot drift from
 * the API. `npm run gen:api`; test/web/openapi-client.test.ts fails when the committed files are stale.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';

export const API_DIR = fileURLToPath(new URL('../web/src/api/', import.meta.url));

/** The document the server publishes at /swagger/doc.json, from an app on an in-memory database. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  // Fixed values: the document must not depend on the environment of whoever runs this.
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    SERVICE_SESSION_SECRET: 'openapi-generation-secret-not-used-0123',
    SERVICE_BASE_URL: 'http://localhost:8080',
    SERVICE_WORKERS: '0',
    LOG_LEVEL: 'silent',
  });
  const db = openDatabase(config.database);
  try {
    await db.migrate();
    const app = await buildApp({ config, db, sessionSecret: config.sessionSecret!, logger: false });
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

export async function schemaTypes(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { alphabetize: false });
  return COMMENT_HEADER + astToString(ast);
}

/** Writes openapi.json and schema.d.ts into `dir`; returns their paths. */
export async function generate(dir: string = API_DIR): Promise<{ json: string; types: string }> {
  const document = await openApiDocument();
  await mkdir(dir, { recursive: true });
  const json = path.join(dir, 'openapi.json');
  const types = path.join(dir, 'schema.d.ts');
  await writeFile(json, `${JSON.stringify(document, null, 2)}\n`);
  await writeFile(types, await schemaTypes(document));
  return { json, types };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ? path.resolve(process.argv[2]) : API_DIR;
  const written = await generate(out);
  process.stdout.write(`wrote ${path.relative(process.cwd(), written.json)} and ${path.relative(process.cwd(), written.types)}\n`);
}
