import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerOptions } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problemBody } from './problem.js';
import { sendProblem } from './errors.js';

/** Node's own default; behind a proxy the proxy's limit usually bites first. */
const MAX_HEADERS_TIMEOUT_MS = 60_000;

/**
 * Timeouts and the errors raised before a request reaches routing, as Fastify server options.
 *
 * Fastify turns Node's requestTimeout off (0) by default, so a client that stops sending its body
 * held the connection and its handler forever. Here the whole request must arrive within
 * SERVICE_REQUEST_TIMEOUT_SECONDS (headers within at most 60 s of it); Node checks open connections
 * every few seconds and answers a late one 408 through clientError.
 */
export function connectionOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(requestTimeoutMs, MAX_HEADERS_TIMEOUT_MS),
      connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(requestTimeoutMs / 4))),
    } satisfies ServerOptions,
    clientErrorHandler: writeClientError,
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const status = error.statusCode ?? 400;
      return sendProblem(reply, status, error.code === 'FST_ERR_BAD_URL' ? 'The request path is not valid percent-encoded UTF-8.' : error.message);
    },
  };
}

/**
 * Responses are written at the end of the event loop's turn (its check phase), one after another,
 * rather than each the moment it is ready, as uWebSockets corks its writes. A client or proxy on the
 * same host (a sidecar, a local reverse proxy) waits asleep between answers, and a write wakes it:
 * written one at a time, each request's write woke the reader and each reply woke this thread again,
 * every write then costing 25-35 us in the kernel, a fifth of a status read's time. Written together,
 * one wake-up serves the turn's responses. Measured, status reads at 64 connections from a client on
 * this host, 6 alternating pairs: SQLite 5,075-7,338 req/s each at once, 7,437-11,526 together (p99 16-24
 * ms against 13-20). A response waits for the rest of its turn's requests at most; alone, for one
 * pass of the loop.
 */
export function registerTurnWrites(app: FastifyInstance): void {
  app.addHook('onSend', (_request, _reply, payload, done) => {
    setImmediate(done, null, payload);
  });
}

const CLIENT_ERRORS: Record<string, [status: number, detail: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request did not arrive in time; the connection is closed.'],
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The chunk extensions of the request body are too large.'],
  HPE_INVALID_METHOD: [400, 'The request method is not a valid HTTP method.'],
};

/**
 * Node's parser and timeouts end a connection with a bare status line (or Fastify's own JSON):
 * answer in the one error shape instead, when nothing of a response has been written yet.
 */
function writeClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'The request is not valid HTTP.'];
  // Node's own rule: write only when no response of this connection has started.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(problemBody(status, detail));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
