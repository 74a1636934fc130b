import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { unauthorized } from '../problem.js';

export interface QueueStats {
  pending: number;
  oldestPendingAt: string | null;
}

/** Prometheus metrics of one app: its own registry, so several apps in one process do not clash. */
export function createMetrics(queueStats: () => Promise<QueueStats>) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'scanyard_http_requests_total', help: 'HTTP requests by route and status.', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const durations = new Histogram({
    name: 'scanyard_http_request_duration_seconds', help: 'HTTP request durations by route and status.',
    labelNames: ['method', 'route', 'status'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers: [registry],
  });
  const received = new Counter({ name: 'scanyard_uploads_received_total', help: 'Uploads accepted, by format.', labelNames: ['format'], registers: [registry] });
  const completed = new Counter({ name: 'scanyard_uploads_completed_total', help: 'Uploads processed, by format.', labelNames: ['format'], registers: [registry] });
  const failed = new Counter({ name: 'scanyard_uploads_failed_total', help: 'Uploads that failed processing, by format.', labelNames: ['format'], registers: [registry] });
  const processing = new Histogram({
    name: 'scanyard_upload_processing_seconds', help: 'Time to process an upload, by format.', labelNames: ['format'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60], registers: [registry],
  });
  new Gauge({
    name: 'scanyard_upload_queue_depth', help: 'Uploads waiting or being processed (all instances).', registers: [registry],
    async collect() {
      this.set((await queueStats()).pending);
    },
  });
  new Gauge({
    name: 'scanyard_upload_oldest_pending_age_seconds', help: 'Age of the oldest upload not yet processed (0 when none).', registers: [registry],
    async collect() {
      const { oldestPendingAt } = await queueStats();
      this.set(oldestPendingAt ? Math.max(0, (Date.now() - Date.parse(oldestPendingAt)) / 1000) : 0);
    },
  });
  return {
    registry,
    request(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status });
      durations.observe({ method, route, status }, seconds);
    },
    uploadReceived: (format: string) => received.inc({ format }),
    uploadCompleted: (format: string, seconds: number) => {
      completed.inc({ format });
      processing.observe({ format }, seconds);
    },
    uploadFailed: (format: string) => failed.inc({ format }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

export async function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | null): Promise<void> {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: ids in paths would make every request its own series.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', {
    schema: { hide: true },
    config: { auth: 'none', ownBearer: true },
  }, async (request, reply) => {
    if (token !== null && !tokenMatches(request.headers.authorization, token)) {
      throw unauthorized('Send the metrics token as "Authorization: Bearer <token>".');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
