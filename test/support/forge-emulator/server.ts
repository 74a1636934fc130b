/**
 * The HTTP plumbing the forge REST emulators share: a real server on 127.0.0.1 at a random port,
 * page slicing with the forges' pagination headers, and injectable rate-limit answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer = { status: number; body: unknown; headers?: Record<string, string> };
export type Handler = (req: { method: string; path: string; query: URLSearchParams; headers: IncomingMessage['headers']; body: string }) => Answer | Promise<Answer>;

/**
 * retry_after: 429 with Retry-After: 1. reset: 403 with x-ratelimit-remaining: 0 and x-ratelimit-reset
 * a second ahead (GitHub's primary limit). secondary: GitHub's 403 "You have exceeded a secondary
 * rate limit" with Retry-After: 1. error: a 502 with an HTML body, as a proxy in front of a forge sends.
 */
export type Fault = 'retry_after' | 'reset' | 'secondary' | 'error';

export interface EmulatorServer {
  origin: string;
  /** Paths requested, in order (query included). */
  requests: string[];
  /** The next `count` API requests (whose path matches, if given) get this answer instead. */
  inject(fault: Fault, count?: number, pathMatch?: RegExp): void;
  close(): Promise<void>;
}

export async function startServer(handler: Handler, faultAnswer: (fault: Fault) => Answer): Promise<EmulatorServer> {
  const faults: { fault: Fault; pathMatch: RegExp | null }[] = [];
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://emulator');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      let answer: Answer;
      const at = faults.findIndex((f) => f.pathMatch === null || f.pathMatch.test(url.pathname));
      if (at !== -1) {
        answer = faultAnswer(faults[at]!.fault);
        faults.splice(at, 1);
      } else {
        try {
          answer = await handler({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        } catch (error) {
          answer = { status: 500, body: { message: (error as Error).message } };
        }
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/html' : 'application/json; charset=utf-8', ...answer.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    inject(fault, count = 1, pathMatch) {
      for (let i = 0; i < count; i++) faults.push({ fault, pathMatch: pathMatch ?? null });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** One page of `items` by page/per_page (1-based; per_page capped at `maxPerPage`), as the forges do. */
export function pageOf<T>(items: T[], query: URLSearchParams, maxPerPage: number): { page: number; perPage: number; last: number; slice: T[] } {
  const perPage = Math.max(1, Math.min(Number(query.get('per_page') ?? 30) || 30, maxPerPage));
  const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  return { page, perPage, last, slice: items.slice((page - 1) * perPage, page * perPage) };
}

/** An RFC 8288 Link header with next/last (and prev/first), GitHub's form. */
export function linkHeader(base: string, query: URLSearchParams, page: number, last: number): string {
  const at = (p: number) => {
    const q = new URLSearchParams(query);
    q.set('page', String(p));
    return `<${base}?${q.toString()}>`;
  };
  const links: string[] = [];
  if (page < last) links.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) links.push(`${at(page - 1)}; rel="prev"`, `${at(1)}; rel="first"`);
  return links.join(', ');
}
