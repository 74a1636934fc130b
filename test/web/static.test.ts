/**
 * How the server serves the built web UI: files with the right cache headers, index.html for the
 * app's own URLs (history fallback), problem+json 404s for unknown server paths, and a clear 503
 * when the UI was not built.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.js';
import { webUi } from '../../src/http/static.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

async function appServing(root: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  app.get('/api/v1/known', async () => ({ ok: true }));
  await app.register(webUi, { root });
  await app.ready();
  return app;
}

describe('the web UI, built', () => {
  let root: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'scanyard-web-'));
    await mkdir(path.join(root, 'assets'));
    await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Scanyard</title><div id="root"></div>');
    await writeFile(path.join(root, 'assets/index-AbCd1234.js'), 'console.log("app")');
    await writeFile(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(path.join(root, '.secret'), 'dotfile');
    app = await appServing(root);
  });
  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves index.html at / without caching it', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.body).toContain('<div id="root">');
  });

  it('serves hashed assets as immutable and other files revalidated', async () => {
    const asset = await app.inject({ url: '/assets/index-AbCd1234.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await app.inject({ url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers the app\'s own URLs with index.html when a browser asks for a page', async () => {
    for (const url of ['/orgs/0190-abc', '/repos/x?tab=components', '/settings', '/login?error=denied']) {
      const res = await app.inject({ url, headers: HTML });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<div id="root">');
    }
  });

  it('keeps problem+json 404s for unknown server paths and for non-page requests', async () => {
    for (const url of ['/api/v1/nope', '/api', '/auth/nope', '/swagger/nope.json', '/healthz/x', '/metrics/x']) {
      const res = await app.inject({ url, headers: HTML });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toContain('application/problem+json');
      expect(res.json(), url).toMatchObject({ status: 404, detail: `No route matches GET ${url}.` });
    }
    const asset = await app.inject({ url: '/assets/index-Missing0.js' });
    expect(asset.statusCode).toBe(404);
    expect(asset.headers['content-type']).toContain('application/problem+json');
    expect((await app.inject({ url: '/api/v1/known', headers: HTML })).json()).toEqual({ ok: true });
  });

  it('never serves a file outside the build or a dotfile', async () => {
    for (const url of ['/../package.json', '/%2e%2e/package.json', '/.secret', '/assets/..%2f..%2fetc/passwd']) {
      const res = await app.inject({ url, headers: HTML });
      expect(res.body, url).not.toContain('dotfile');
      expect(res.body, url).not.toContain('"name"');
    }
  });
});

describe('the web UI, not built', () => {
  let root: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'scanyard-web-empty-'));
    app = await appServing(root);
  });
  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  it('says so with a 503 page to a browser', async () => {
    const res = await app.inject({ url: '/dashboard', headers: HTML });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('npm run build');
  });

  it('and with a 503 problem to anything else asking for /', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 503 });
  });
});
