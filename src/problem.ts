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
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; reason?: string } = {},
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new HttpProblem(400, detail, { errors });

/**
 * For a request field listing ids of other objects (key orgs, team members, hook repositories): one
 * error per id outside `accepted`, at its index and naming it, so a client sees which ids to fix.
 */
export function idErrors(field: string, ids: readonly string[], accepted: ReadonlySet<string>, what: string): FieldError[] {
  return ids.flatMap((id, i) => (accepted.has(id) ? [] : [{ path: `/${field}/${i}`, message: `${JSON.stringify(id)} ${what}` }]));
}

/** Throws 400 when idErrors found any, naming the refused ids in the detail too. */
export function refuseIds(detail: string, field: string, ids: readonly string[], accepted: ReadonlySet<string>, what: string): void {
  const errors = idErrors(field, ids, accepted, what);
  if (errors.length) throw badRequest(`${detail} Not accepted: ${[...new Set(ids.filter((id) => !accepted.has(id)))].join(', ')}.`, errors);
}
export const unauthorized = (detail = 'Sign in, or send an API key as "Authorization: Bearer <key>".') =>
  new HttpProblem(401, detail, { headers: { 'www-authenticate': 'Bearer' } });
export const forbidden = (detail: string) => new HttpProblem(403, detail);
export const notFound = (what: string) => new HttpProblem(404, `${what} was not found.`);
export const conflict = (detail: string) => new HttpProblem(409, detail);
