import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got, with the checks a careful receiver makes. */
export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The X-Scanyard-Signature-256 header matches the HMAC of the raw body with the secret. */
  signatureValid: boolean;
  at: number;
}

export type Responder = (request: Received, index: number) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A webhook receiver on 127.0.0.1, as an integrator would write one: it verifies the signature and
 * records everything. `respond` decides each answer (default 200); 'hang' never answers.
 */
export async function startReceiver(secret: string, respond: Responder = () => ({ status: 200 })) {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  /** Requests being answered, and the most ever at once, per path. */
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    maxInFlight.set(path, Math.max(maxInFlight.get(path) ?? 0, now));
    const done = () => inFlight.set(path, inFlight.get(path)! - 1);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-scanyard-signature-256'] ?? ''));
      const entry: Received = {
        method: req.method ?? '', path, headers: req.headers, body, at: Date.now(),
        signatureValid: given.length === expected.length && timingSafeEqual(given, expected),
      };
      received.push(entry);
      const answer = respond(entry, received.length - 1);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', done);
        return;
      }
      // A little work per request, so overlapping deliveries would show in maxInFlight.
      setTimeout(() => {
        done();
        res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? 'ok');
      }, answer.delayMs ?? 2);
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    /** The most requests to this path it was ever answering at once. */
    maxInFlight: (path: string) => maxInFlight.get(path) ?? 0,
    /** Deliveries by id, each with its attempts, in arrival order. */
    byDelivery(): Map<string, Received[]> {
      const out = new Map<string, Received[]>();
      for (const r of received) {
        const id = String(r.headers['x-scanyard-delivery']);
        out.set(id, [...(out.get(id) ?? []), r]);
      }
      return out;
    },
    async close(): Promise<void> {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
