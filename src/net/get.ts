import http from 'node:http';
import https from 'node:https';
import { AddressRefused, guardedLookup, isPublicAddress, literalHost } from './address.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface GetRequest {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** A body larger than this is cut off and the request fails. */
  maxBytes: number;
  allowPrivate: boolean;
  /** GET unless said (forge sync POSTs for GitHub App installation tokens; verdicts write to forges). */
  method?: Method;
  body?: string;
}

export interface GetResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class GetError extends Error {
  override readonly name = 'GetError';
}

/**
 * One GET of a URL someone configured: only public addresses unless allowPrivate (checked after
 * DNS, on the address connected to), no redirects followed, the whole exchange bounded in time
 * and the body in size. Throws GetError with the reason in words.
 */
export async function guardedGet(request: GetRequest): Promise<GetResponse> {
  const url = new URL(request.url);
  const literal = literalHost(url);
  if (!request.allowPrivate && literal !== null && !isPublicAddress(literal)) throw new GetError(`refused: ${literal} is not a public address`);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<GetResponse>((resolve, reject) => {
    const req = client.request(url, { method: request.method ?? 'GET', headers: request.headers, lookup: guardedLookup(request.allowPrivate), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > request.maxBytes) {
          req.destroy(new GetError(`the answer is larger than ${request.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) });
      });
      res.on('error', (error) => req.destroy(error));
    });
    const timer = setTimeout(() => req.destroy(new GetError(`no complete answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error instanceof GetError ? error : new GetError(error instanceof AddressRefused ? `refused: ${error.message}` : error.message));
    });
    req.end(request.body);
  });
}
