/**
 * The only way the UI talks to the server: openapi-fetch typed by the schema generated from the
 * server's own OpenAPI document (npm run gen:api), so a change on one side that the other does not
 * follow fails the type check instead of a user's request.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type ApiPaths = paths;
export type Problem = components['schemas']['Problem'];

export const api = createClient<ApiPaths>({ baseUrl: window.location.origin, credentials: 'same-origin' });

/** A failed request, with the server's words for it (problem+json `detail`) when it gave some. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problem?: Problem,
  ) {
    super(message);
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Awaits an openapi-fetch call: its data and response, or an ApiError that says what went wrong. */
export async function call<T>(request: Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch (caught) {
    if (caught instanceof DOMException && caught.name === 'AbortError') throw caught;
    throw new ApiError(0, 'Scanyard cannot be reached. Check your connection and try again.');
  }
  const { data, error, response } = answer;
  if (!response.ok) throw errorFrom(response, error);
  return { data: data as T, response };
}

function errorFrom(response: Response, body: unknown): ApiError {
  if (isProblem(body)) return new ApiError(response.status, body.detail, body);
  const text = response.status >= 500
    ? `The server failed (${response.status} ${response.statusText}). Try again in a moment.`
    : `The request failed (${response.status} ${response.statusText}).`;
  return new ApiError(response.status, text);
}

function isProblem(body: unknown): body is Problem {
  return typeof body === 'object' && body !== null && typeof (body as Problem).detail === 'string';
}

/** An answer the UI treats as "this does not exist (for you)": the not-found page, not an error. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
