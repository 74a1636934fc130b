import http from 'node:http';
import https from 'node:https';
import { AddressRefused, guardedLookup, isPublicAddress, literalHost } from '../net/address.js';

/** How much of a receiver's answer is kept for the deliveries list. */
const RESPONSE_BODY_LIMIT = 1024;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendResult {
  /** The receiver's status code; null when no answer came (refused address, timeout, network). */
  status: number | null;
  durationMs: number;
  /** The first RESPONSE_BODY_LIMIT bytes of the answer, as text. */
  body: string | null;
  error: string | null;
}

/**
 * One POST, answered or not: never throws. Redirects are not followed (a 3xx is a failed attempt),
 * and only public addresses are connected to unless allowPrivate.
 */
export async function send(request: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(request.url);
  const literal = literalHost(url);
  if (!request.allowPrivate && literal !== null && !isPublicAddress(literal)) {
    return { status: null, durationMs: elapsed(), body: null, error: `refused: ${literal} is not a public address` };
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const req = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      lookup: guardedLookup(request.allowPrivate),
      // A pooled socket could outlive a change of what the name resolves to.
      agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_BODY_LIMIT) {
          chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
          kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT - kept);
        } else {
          // Enough kept: the rest of a large answer is not worth waiting for.
          res.destroy();
        }
      });
      // PostgreSQL text cannot hold NUL, and a receiver may answer anything.
      const done = () => finish({ status: res.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8').replace(/\0/g, ''), error: null });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    // The whole exchange, not only idle time: a receiver dribbling bytes cannot hold a worker.
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    req.on('error', (error) => {
      const message = error instanceof AddressRefused ? `refused: ${error.message}` : error.message;
      finish({ status: null, body: null, error: message });
    });
    req.end(request.body);
  });
}
