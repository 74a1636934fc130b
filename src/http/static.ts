import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { sendProblem } from './errors.js';
import { APP_CSP, securityHeaders } from './security-headers.js';

/** Paths that belong to the server: an unknown one is a problem+json 404, never the app's page. */
const SERVER_PATHS = /^\/(api|auth|swagger|healthz|readyz|metrics)(\/|$)/;
/** Vite puts content-hashed files here: a new build gives new names, so they never change. */
const HASHED_ASSETS = /^\/assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

const IMMUTABLE = 'public, max-age=31536000, immutable';
// Revalidated on every load (ETag / Last-Modified), so a deploy shows at once.
const REVALIDATE = 'no-cache';

export interface WebUiOptions {
  /** The built app (vite's outDir); defaults to dist/web of this checkout. */
  root?: string;
}

/** dist/web, whether this file runs built (dist/src/http) or from source (src/http, with tsx). */
export function defaultWebRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const twoUp = path.resolve(here, '../..');
  return path.basename(twoUp) === 'dist' ? path.join(twoUp, 'web') : path.join(twoUp, 'dist', 'web');
}

/**
 * Serves the single-page app built into dist/web at `/`: its files as they are, and index.html for
 * any other page a browser asks for (the app routes on the client), so every screen has a URL that
 * can be shared and reloaded. Register it last: every explicit route wins over its wildcard.
 */
export const webUi: FastifyPluginAsync<WebUiOptions> = async (app, options) => {
  const root = path.resolve(options.root ?? defaultWebRoot());
  await app.register(fastifyStatic, { root, serve: false, decorateReply: true });

  app.get('/*', {
    schema: { hide: true },
    config: { auth: 'none' },
  }, async (request, reply) => {
    const pathname = pathOf(request);
    if (pathname === null || SERVER_PATHS.test(pathname)) return reply.callNotFound();

    const file = pathname === '/' ? null : await fileUnder(root, pathname);
    if (file) {
      reply.header('cache-control', HASHED_ASSETS.test(pathname) ? IMMUTABLE : REVALIDATE);
      if (file.endsWith('.html')) securityHeaders(reply, APP_CSP);
      return reply.sendFile(file, root, { cacheControl: false });
    }
    if (pathname !== '/' && !acceptsHtml(request)) return reply.callNotFound();
    if (!(await fileUnder(root, '/index.html'))) return notBuilt(request, reply, root);
    reply.header('cache-control', REVALIDATE);
    securityHeaders(reply, APP_CSP);
    return reply.sendFile('index.html', root, { cacheControl: false });
  });
};

function pathOf(request: FastifyRequest): string | null {
  try {
    return decodeURIComponent(request.url.split('?')[0] ?? '/');
  } catch {
    return null;
  }
}

/** The path of a regular file under root, relative to it, or null; never a dotfile or outside root. */
async function fileUnder(root: string, pathname: string): Promise<string | null> {
  if (pathname.includes('\0') || pathname.split('/').some((part) => part.startsWith('.'))) return null;
  const absolute = path.resolve(root, `.${pathname}`);
  if (!absolute.startsWith(root + path.sep)) return null;
  try {
    return (await stat(absolute)).isFile() ? path.relative(root, absolute) : null;
  } catch {
    return null;
  }
}

function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

function notBuilt(request: FastifyRequest, reply: FastifyReply, root: string) {
  const detail = `The web UI has not been built (no index.html in ${root}). Run "npm run build" and restart; the API under /api/v1 works meanwhile.`;
  if (!acceptsHtml(request)) return sendProblem(reply.header('retry-after', '60'), 503, detail);
  return reply
    .code(503)
    .header('cache-control', 'no-store')
    .header('retry-after', '60')
    .type('text/html; charset=utf-8')
    .send(notBuiltPage(detail));
}

function notBuiltPage(detail: string): string {
  const escaped = detail.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scanyard: web UI not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}}code{font-size:.95em}</style></head>
<body><h1>Scanyard is running, but its web UI is missing</h1><p>${escaped}</p>
<p>API documentation: <a href="/swagger/index.html">/swagger/index.html</a></p></body></html>
`;
}
