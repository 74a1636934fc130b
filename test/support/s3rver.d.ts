declare module 's3rver' {
  import type { IncomingMessage, Server } from 'node:http';
  import type { AddressInfo } from 'node:net';
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    configureBuckets?: { name: string }[];
  }
  type Middleware = (ctx: { method: string; query: Record<string, string | string[] | undefined>; req: IncomingMessage }, next: () => Promise<void>) => Promise<void>;
  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware stack, composed when the server starts listening. */
    middleware: Middleware[];
    /** Set by run(). */
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
