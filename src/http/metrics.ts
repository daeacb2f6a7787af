/**
 * Prometheus metrics (docs/operations.md, "Metrics"), off unless DAYBOOK_METRICS_TOKEN or
 * DAYBOOK_METRICS_PORT is set: requests by route, method and status with their latency,
 * rate-limit and key rejections, summary runs and delivery attempts, the PostgreSQL pool, and Node's own (event-loop
 * lag, memory, CPU, garbage collection). With neither setting no hook is added to requests.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { GenerateStats } from '../services/summaries/generate.ts';
import type { Storage } from '../storage/database.ts';
import type { App } from './types.ts';

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'daybook_http_requests_total',
    help: 'HTTP requests answered, by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'daybook_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route and method.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly rejected = new Counter({
    name: 'daybook_rejected_requests_total',
    help: 'Requests refused before their route ran: rate_limited (429), unauthenticated (401), forbidden (403).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly summaryRuns = new Counter({
    name: 'daybook_summary_runs_total',
    help: 'Runs of the summary schedule, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly summariesBuilt = new Counter({
    name: 'daybook_summaries_built_total',
    help: 'Summaries built or rebuilt by the schedule.',
    registers: [this.registry],
  });
  private readonly summaryDuration = new Histogram({
    name: 'daybook_summary_run_duration_seconds',
    help: 'Time of a run of the summary schedule.',
    buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers: [this.registry],
  });

  private readonly written = new Counter({
    name: 'daybook_records_written_total',
    help: 'Records written through the API, by kind (activity, task, day_comment, heartbeat). Imports run in the daybook import process and print their own counts.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly deliveries = new Counter({
    name: 'daybook_delivery_attempts_total',
    help: 'Summary delivery attempts (docs/delivery.md), by destination kind and outcome: delivered, failed, rate-limited, gone, timeout, network, refused.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(storage: Storage) {
    collectDefaultMetrics({ register: this.registry, prefix: 'daybook_' });
    const pool = storage.poolStats;
    if (pool) {
      new Gauge({
        name: 'daybook_db_pool_connections',
        help: 'PostgreSQL connections of this process: in use, idle, and requests waiting for one.',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const { total, idle, waiting } = pool();
          this.set({ state: 'in_use' }, total - idle);
          this.set({ state: 'idle' }, idle);
          this.set({ state: 'waiting' }, waiting);
        },
      });
    }
  }

  /** One answered request; `route` is the route's pattern, never the path (ids stay out of labels). */
  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route, method }, seconds);
    if (status === 429) this.rejected.inc({ reason: 'rate_limited' });
    else if (status === 401) this.rejected.inc({ reason: 'unauthenticated' });
    else if (status === 403) this.rejected.inc({ reason: 'forbidden' });
  }

  recordsWritten(kind: 'activity' | 'task' | 'day_comment' | 'heartbeat', count: number): void {
    if (count > 0) this.written.inc({ kind }, count);
  }

  deliveryAttempt(kind: string, outcome: string): void {
    this.deliveries.inc({ kind, outcome });
  }

  summaryRun(stats: GenerateStats | null, ms: number): void {
    this.summaryRuns.inc({ outcome: stats ? 'done' : 'failed' });
    if (stats) this.summariesBuilt.inc(stats.built);
    this.summaryDuration.observe(ms / 1000);
  }
}

/**
 * Counts every answer, and serves `GET /metrics` on the API's port to a caller that presents
 * `Authorization: Bearer <DAYBOOK_METRICS_TOKEN>` (anything else: 404, as if it were not there).
 */
export function registerMetrics(app: App, metrics: Metrics, token: string | null): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.request(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (!token) return;
  const expected = Buffer.from(`Bearer ${token}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return reply.code(404).send({ success: false, error: 'Not Found', message: 'Not Found' });
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

/** `GET /metrics` on a port of its own (DAYBOOK_METRICS_PORT), for a scraper on a private network. */
export async function serveMetrics(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
