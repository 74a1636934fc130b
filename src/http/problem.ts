import { STATUS_CODES } from 'node:http';
import { Type } from 'typebox';

export interface FieldError {
  path: string;
  message: string;
}

/**
 * An RFC 9457 problem. Thrown anywhere in a request; the error handler writes it as
 * application/problem+json. `detail` is shown to the user, so it never carries secrets.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new HttpProblem(400, detail, { errors });
export const unauthorized = (detail = 'Sign in, or send an API key as "Authorization: Bearer <key>".') =>
  new HttpProblem(401, detail, { headers: { 'www-authenticate': 'Bearer' } });
export const forbidden = (detail: string) => new HttpProblem(403, detail);
export const notFound = (what: string) => new HttpProblem(404, `${what} was not found.`);
export const conflict = (detail: string) => new HttpProblem(409, detail);

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
}

export function problemBody(status: number, detail: string, errors?: FieldError[]): ProblemBody {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'A URI reference that identifies the problem type; "about:blank" for plain HTTP statuses.' }),
    title: Type.String({ description: 'The HTTP status phrase.' }),
    status: Type.Integer({ description: 'The HTTP status code.' }),
    detail: Type.String({ description: 'What went wrong, in words meant for the user.' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer of the offending field, e.g. /name or /query/per_page.' }),
          message: Type.String(),
        }),
        { description: 'One entry per invalid field (validation failures only).' },
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem details.' },
);
