import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keep a caller's X-Request-Id when it is harmless, so one id follows a request across services. */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

const SECRET_QUERY = /([?&](?:code|state|token|access_token|key)=)[^&]*/gi;

/** Request URLs as logged: OAuth codes and states are secrets, even in a query string. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}
