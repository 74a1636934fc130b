import type { FastifyInstance } from 'fastify';
import { HttpProblem, badRequest } from '../problem.js';

/** Characters a canonical URI never percent-encodes (RFC 3986 2.3), plus the separators "/" and "\". */
const NEVER_ENCODED = /^[A-Za-z0-9\-._~/\\]$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/**
 * Why a request target is not the one canonical spelling of its path, or null when it is.
 *
 * The router decodes %61 to "a" and takes the authority off an absolute-form target, so several
 * spellings reach one route. Decisions are made on the matched route, but a second spelling is
 * still a way around anything that looks at the URL (logs, metrics, a proxy's rules in front of us),
 * so only the canonical one is served.
 */
function nonCanonicalReason(target: string): string | null {
  if (!target.startsWith('/')) return 'send the path only (origin-form), not an absolute URL or "*"';
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (path.includes('\\')) return 'the path holds a backslash';
  if (path.includes('//')) return 'the path holds an empty segment ("//")';
  if (DOT_SEGMENT.test(path)) return 'the path holds a "." or ".." segment';
  if (!path.includes('%')) return null;
  for (const match of path.matchAll(/%(.{0,2})/g)) {
    const hex = match[1] ?? '';
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return 'the path holds a malformed percent-encoding';
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    if (NEVER_ENCODED.test(char)) return `the path percent-encodes "${char}", which is only accepted as itself`;
  }
  return null;
}

/**
 * Why the query string cannot be read as sent, or null: the query parser keeps a malformed or
 * non-UTF-8 percent-encoding (`%zz`, `%FF`) as literal text, so `?ref=%FF` made a branch named "%FF".
 */
function queryFault(target: string): string | null {
  const start = target.indexOf('?');
  if (start === -1 || !target.includes('%', start)) return null;
  for (const pair of target.slice(start + 1).split('&')) {
    try {
      decodeURIComponent(pair);
    } catch {
      return 'The query string is not valid percent-encoded UTF-8.';
    }
  }
  return null;
}

/**
 * First of all hooks: a request target in any spelling but the canonical one is a 400, and so is a
 * query string that is not percent-encoded UTF-8. When dev
 * login is on, a Host other than SERVICE_BASE_URL's is refused too: a DNS name rebound to this
 * machine would otherwise let any web page drive a local instance with the browser's same-origin
 * rights (its Origin is then the rebinding name, which the origin check would see as same-origin
 * only if it trusted Host).
 */
export function registerRequestTargetCheck(app: FastifyInstance, options: { onlyHostOf: string | null }): void {
  const base = options.onlyHostOf === null ? null : new URL(options.onlyHostOf);
  // The spelling clients send is nearly always this one: it is taken without parsing a URL.
  const allowedHost = base?.host;
  app.addHook('onRequest', async (request) => {
    const reason = nonCanonicalReason(request.raw.url ?? '');
    if (reason !== null) throw badRequest(`The request target is not in canonical form: ${reason}.`);
    const fault = queryFault(request.raw.url ?? '');
    if (fault !== null) throw badRequest(fault);
    // The Host header itself: never X-Forwarded-Host, which any client can send. Probes of health
    // (a container's healthcheck by IP) show nothing and change nothing: they answer to any host.
    if (base !== null && !request.routeOptions.config.anyHost && request.headers.host !== allowedHost && normalisedHost(request.headers.host, base.protocol) !== base.host) {
      throw new HttpProblem(421, `While development login is on, this instance answers only to ${base.host}, the host of SERVICE_BASE_URL.`);
    }
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served whatever the Host, also while dev login is on (health probes). */
    anyHost?: boolean;
  }
}

/** host[:port] as URL.host spells it (lower case, default port left out), or null when it is not one. */
function normalisedHost(header: string | undefined, protocol = 'http:'): string | null {
  if (!header || /[/?#@\s\\]/.test(header)) return null;
  try {
    return new URL(`${protocol}//${header}`).host;
  } catch {
    return null;
  }
}
