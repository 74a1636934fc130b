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
