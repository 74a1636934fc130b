import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { HttpProblem, type FieldError } from '../problem.js';
import { problemBody } from './problem.js';
import { DISPLAY_NAME_FORMAT, DISPLAY_NAME_RULE } from '../names.js';
import { DATE_TIME_FORMAT, DATE_TIME_RULE } from '../date-time.js';

/** Every error leaves as application/problem+json; a 500 never shows its cause to the client. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpProblem, request, reply) => {
    if (error instanceof HttpProblem) {
      // An outage answered with a problem of its own (503): what failed underneath goes to the log only.
      if (error.status >= 500 && error.cause) request.log.error({ err: error.cause ?? error }, error.detail);
      for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
      return sendProblem(reply, error.status, error.detail, error.extra.errors, error.extra.reason);
    }
    if (error.validation) {
      const errors = validationErrors(error);
      return sendProblem(reply, 400, `The request is not valid: ${summary(errors)}`, errors);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendProblem(reply, status, clientMessage(error, status));
    // Reading the body failed because the client hung up (a cancelled CI job): nothing of ours broke,
    // and nobody reads the answer. Judged by the request's own socket, never by the error's code,
    // which a database connection reset would share.
    if (!request.raw.complete && (request.raw.destroyed || request.raw.socket.destroyed)) {
      request.log.info({ code: (error as { code?: string }).code }, 'the client went away before its request was read');
      return sendProblem(reply, 400, 'The request ended before its body was complete.');
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, 500, 'Something went wrong on our side. The request id identifies it in the logs.');
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, `No route matches ${request.method} ${request.url.split('?')[0]}.`),
  );
}

export function sendProblem(reply: FastifyReply, status: number, detail: string, errors?: FieldError[], reason?: string) {
  return reply.code(status).type('application/problem+json').send(problemBody(status, detail, errors, reason));
}

function validationErrors(error: FastifyError): FieldError[] {
  // Fastify says "querystring"; the Problem schema documents the shorter /query/<name>.
  const context = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'body');
  return (error.validation ?? []).map((issue) => {
    const params = issue.params as Record<string, unknown>;
    let path = issue.instancePath;
    if (typeof params.additionalProperty === 'string') path += `/${params.additionalProperty}`;
    if (typeof params.missingProperty === 'string') path += `/${params.missingProperty}`;
    const message = typeof params.additionalProperty === 'string' ? 'is not a known field'
      : params.format === DISPLAY_NAME_FORMAT ? DISPLAY_NAME_RULE
        : params.format === DATE_TIME_FORMAT ? DATE_TIME_RULE
          : (issue.message ?? 'is invalid');
    return { path: context === 'body' ? path || '/' : `/${context}${path}`, message };
  });
}

function summary(errors: FieldError[]): string {
  return errors.map((e) => `${e.path} ${e.message}`).join('; ');
}

function clientMessage(error: FastifyError, status: number): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'The Content-Type of this request is not accepted here; send application/json.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is larger than this endpoint accepts.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; send a JSON object.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return `The request body is not valid JSON: ${error.message}`;
    default:
      return status === 429 ? 'Too many requests; slow down and retry after the time in Retry-After.' : error.message;
  }
}

