import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { App } from '../../src/app.js';

/**
 * Bytes on a socket to a listening app, for what inject cannot send: absolute-form request lines,
 * unknown methods, oversized headers, bodies that stop arriving.
 */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (rather than the test giving up waiting). */
  closedByServer: boolean;
  /** Milliseconds from the first byte sent to the end of the answer. */
  elapsedMs: number;
}

export async function listen(app: App): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

/**
 * Sends `request` as it is and reads until the server closes or `waitMs` pass. Requests should say
 * `Connection: close` so that a complete answer ends the wait.
 */
export function rawRequest(port: number, request: string | Buffer, waitMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, waitMs);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A server that answers and resets is still an answer.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parse(Buffer.concat(chunks).toString('latin1')), closedByServer, elapsedMs: Date.now() - started });
    });
  });
}

function parse(text: string): Omit<RawResponse, 'closedByServer' | 'elapsedMs'> {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, headers: {}, body: text };
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd === -1) return out;
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** A GET as a client would send it, with whatever request target the test needs. */
export function get(target: string, headers: Record<string, string> = {}, method = 'GET'): string {
  const lines = Object.entries({ host: 'localhost:8080', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
