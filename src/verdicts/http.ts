import { GetError, guardedGet, type Method } from '../net/get.js';
import { headerOf, type LimitedAnswer } from '../net/rate-limit.js';

/** How long one request to a forge may take, answer included. */
const TIMEOUT_MS = 15_000;
/** How much of a forge's answer the delivery log keeps. */
const BODY_KEPT = 1024;
/** A forge's answer larger than this fails the request (a pull request's files page is well under). */
const MAX_BYTES = 16 * 1024 * 1024;

export interface ForgeAnswer extends LimitedAnswer {
  status: number;
  /** Parsed JSON, or null when the body is empty or not JSON. */
  json: unknown;
  /** The first BODY_KEPT characters, for the delivery log. */
  text: string;
}

/** The forge answered, but not as hoped: the delivery records the status and waits as the forge asks. */
export class ForgeRefused extends Error {
  override readonly name = 'ForgeRefused';
  constructor(readonly answer: ForgeAnswer, doing: string) {
    super(`the forge answered HTTP ${answer.status} while ${doing}`);
  }
}

/**
 * One JSON request to a forge's API, through the SSRF guard as forge sync's are: the API's address
 * is the operator's (a provider entry), and loopback or private addresses are reached only with
 * SERVICE_FORGE_ALLOW_PRIVATE (a forge inside the network). Redirects are not followed, since they
 * would carry the token elsewhere.
 */
export async function forgeRequest(request: {
  method: Method; url: string; token: string; body?: unknown; doing: string; headers?: Record<string, string>; allowPrivate: boolean;
}): Promise<ForgeAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Scanyard', ...request.headers, authorization: `Bearer ${request.token}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await guardedGet({
      url: request.url, method: request.method, headers, body: request.body === undefined ? undefined : JSON.stringify(request.body),
      timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, allowPrivate: request.allowPrivate,
    });
  } catch (error) {
    throw new Error(`the forge could not be reached while ${request.doing} (${error instanceof GetError ? error.message : 'network error'})`);
  }
  const text = res.body.toString('utf8').replace(/\0/g, '');
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const answer = { status: res.status, header: headerOf(res.headers), json, text: text.slice(0, BODY_KEPT) };
  if (res.status < 200 || res.status >= 300) throw new ForgeRefused(answer, request.doing);
  return answer;
}
