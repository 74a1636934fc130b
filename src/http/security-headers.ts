import type { FastifyInstance, FastifyReply } from 'fastify';

const COMMON = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
];

/** The web UI: avatars come from the forge. */
export const APP_CSP = [...COMMON, "style-src 'self'", "img-src 'self' data: https:"].join('; ');

/** Swagger UI: its bundle sets inline styles and draws its icons as data: URIs. */
export const SWAGGER_UI_CSP = [...COMMON, "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:"].join('; ');

/** The headers every page the service serves carries, so no page of ours can be framed or sniffed into HTML. */
export function securityHeaders(reply: FastifyReply, contentSecurityPolicy: string): FastifyReply {
  return reply
    .header('content-security-policy', contentSecurityPolicy)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

/** Every response, API and files alike: a browser must never guess a type we did not send. */
export function registerNoSniff(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });
}
