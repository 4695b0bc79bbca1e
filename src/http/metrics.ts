/**
 * Prometheus metrics at GET /metrics (prom-client): what operators expect to graph and alert on.
 * - http_requests_total and http_request_duration_seconds, per method, route TEMPLATE (never the
 *   raw path: order ids would make the series unbounded) and status;
 * - rate_limit_rejections_total per route (every 429 the API sends is the limiter's);
 * - db_pool_connections{state} (total, idle, waiting) when the database is a pool;
 * - rest_v1_requests_total{api_key, route}: authorised calls of the deprecated REST v1 per API key
 *   (its id, never the secret: bounded by the keys an operator created) and v1 route, so an
 *   operator sees who still calls v1 before its Sunset date;
 * - the process's own: event-loop lag, resident memory, heap, CPU (prom-client's defaults).
 * Each app has its own registry, so several gateways in one process (tests) do not collide.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface MetricsOptions {
  /** The database pool's counts, when there is a pool (PostgreSQL); absent for embedded PGlite. */
  poolStats?: () => PoolStats;
}

/**
 * One counter for the process, registered in every app's registry: the v1 routes count where the
 * caller's key is known (after authorisation), which is not where an app's registry is reachable.
 * A production process has one app; test gateways sharing a process keep apart by their keys.
 */
const restV1Requests = new Counter({
  name: 'rest_v1_requests_total',
  help: 'Authorised REST v1 (deprecated) calls, per API key id and v1 route',
  labelNames: ['api_key', 'route'],
  registers: [],
});

export function countRestV1Call(apiKeyId: string, route: string): void {
  restV1Requests.inc({ api_key: apiKeyId, route });
}

/** Latency buckets (seconds): a hot read is a few ms, a provider call up to seconds. */
const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function registerMetrics(app: FastifyInstance, options: MetricsOptions = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registry.registerMetric(restV1Requests);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({ name: 'http_request_duration_seconds', help: 'Time to answer, by route template', labelNames, buckets: DURATION_BUCKETS, registers: [registry] });
  const rejections = new Counter({ name: 'rate_limit_rejections_total', help: 'Requests refused by the rate limit (429)', labelNames: ['route'], registers: [registry] });
  if (options.poolStats) {
    const stats = options.poolStats;
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting clients)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const { total, idle, waiting } = stats();
        this.set({ state: 'total' }, total);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) rejections.inc({ route });
  });
  app.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  return registry;
}
