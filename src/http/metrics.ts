/**
 * Prometheus metrics at GET /metrics (prom-client): what operators expect to graph and alert on.
 * - http_requests_total and http_request_duration_seconds, per method, route TEMPLATE (never the
 *   raw path: order ids would make the series unbounded) and status;
 * - rate_limit_rejections_total per route (every 429 the API sends is the limiter's);
 * - db_pool_connections{state} (total, idle, waiting) when the database is a pool;
 * - db_replica_serving (1 while the read replica serves lagging reads, 0 while they read the
 *   primary) and db_replica_lag_seconds (the last check's measure; absent when it could not
 *   measure), when DATABASE_REPLICA_URL is set (infra/prisma/replica.ts);
 * - gateway_provider_calls_open{kind} and gateway_provider_calls_stuck{kind}: payments, refunds
 *   and payouts whose provider outcome is not known yet, and those asked about so often without
 *   an answer that an operator should decide (alert on stuck > 0);
 * - rest_v1_requests_total{api_key, route}: authorised calls of the deprecated REST v1 per API key
 *   (its id, never the secret: bounded by the keys an operator created) and v1 route, so an
 *   operator sees who still calls v1 before its Sunset date (counted by rest/v1/metrics.ts);
 * - the process's own: event-loop lag, resident memory, heap, CPU (prom-client's defaults).
 * Each app has its own registry, so several gateways in one process (tests) do not collide.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { restV1Requests } from '../rest/v1/metrics.js';

interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface MetricsOptions {
  /** The database pool's counts, when there is a pool (PostgreSQL); absent for embedded PGlite. */
  poolStats?: () => PoolStats;
  /** Provider calls still open and stuck per kind, as the reconcilers last counted them (providerFlow.ts). */
  openProviderCalls?: () => ReadonlyMap<string, { open: number; stuck: number }>;
  /** Each method's provider health (1 healthy, 0 down). */
  providerHealth?: () => { method: string; provider: string; healthy: boolean }[];
  /** The read replica's state, when there is one. */
  replica?: () => { state: string; lagMs: number | null };
}

/** Latency buckets (seconds): a hot read is a few ms, a provider call up to seconds. */
const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function registerMetrics(app: FastifyInstance, options: MetricsOptions = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registry.registerMetric(restV1Requests);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer, by route template',
    labelNames,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused by the rate limit (429)',
    labelNames: ['route'],
    registers: [registry],
  });
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

  if (options.replica) {
    const status = options.replica;
    new Gauge({
      name: 'db_replica_serving',
      help: 'Whether the read replica serves the reads that may lag (1), or they read the primary (0: lagging, unreachable)',
      registers: [registry],
      collect() {
        this.set(status().state === 'serving' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far behind the primary the read replica was at its last check',
      registers: [registry],
      collect() {
        const { lagMs } = status();
        this.reset();
        if (lagMs !== null && Number.isFinite(lagMs)) this.set(lagMs / 1000);
      },
    });
  }

  if (options.openProviderCalls) {
    const counts = options.openProviderCalls;
    const gauge = (name: string, help: string, pick: (count: { open: number; stuck: number }) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['kind'],
        registers: [registry],
        collect() {
          for (const [kind, count] of counts()) this.set({ kind }, pick(count));
        },
      });
    gauge('gateway_provider_calls_open', 'Provider calls (payment, refund, payout) whose outcome is not known yet', (count) => count.open);
    gauge(
      'gateway_provider_calls_stuck',
      'Open provider calls the provider has not resolved after many questions: an operator should decide',
      (count) => count.stuck,
    );
  }

  if (options.providerHealth) {
    const statuses = options.providerHealth;
    new Gauge({
      name: 'gateway_provider_healthy',
      help: "1 when the method's wallet provider answers with the gateway's credentials, 0 when it refuses them or has been unreachable for a while",
      labelNames: ['method', 'provider'],
      registers: [registry],
      collect() {
        this.reset();
        for (const status of statuses()) this.set({ method: status.method, provider: status.provider }, status.healthy ? 1 : 0);
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
