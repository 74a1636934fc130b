import type { Writable } from 'node:stream';
import type { FastifyServerOptions } from 'fastify';
import { redactUrl } from '../net/redact-url.js';

/**
 * pino options: the request line without headers (so cookies and Authorization never reach the
 * log), secret query values masked, and a redact list as a second guard for anything logged by hand.
 */
export function loggerOptions(level: string, stream?: Writable): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.client_secret', '*.key', '*.secret', '*.password', '*.access_token'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
  };
}
