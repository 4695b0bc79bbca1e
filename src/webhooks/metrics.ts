/**
 * Webhook metrics for operators (prom-client), in the API's /metrics registry:
 *
 * - webhook_delivery_attempts_total{outcome}: every recorded attempt, by what became of its delivery:
 *     delivered   the receiver answered 2xx in time;
 *     failed      it did not (error, timeout, 3xx/4xx/5xx): a retry is scheduled;
 *     dropped     it did not and it was the last attempt (or the endpoint was deleted): given up;
 *     superseded  its claim had run out and a later attempt owns the delivery (rare: an instance
 *                 that froze longer than a lease).
 * - webhook_delivery_duration_seconds: the HTTP exchange of each attempt actually sent (connect,
 *   send, the receiver's answer), whatever its outcome; a timeout lands at WEBHOOK_TIMEOUT_MS.
 * - webhook_deliveries_due: the backlog: pending deliveries whose attempt is due and not yet
 *   claimed (first attempts waiting, retries past their time), counted in PostgreSQL at each
 *   scrape (one index scan; bounded). Growing = the dispatchers do not keep up.
 *
 * No per-endpoint or per-organisation label: their number is unbounded (the delivery log in
 * GraphQL and the CLI has the detail).
 *
 * The API registers them (registerWebhookMetrics with its registry and the context); the
 * dispatcher of the same context reports to them (webhookMetricsOf). A context without them (most
 * tests, a dispatcher on its own) reports nothing.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { GatewayContext } from '../domain/context.js';

type AttemptMetricOutcome = 'delivered' | 'failed' | 'dropped' | 'superseded';

export interface WebhookMetrics {
  /** One recorded attempt; `durationMs` when it was sent over HTTP (not for a deleted endpoint or an undecryptable secret). */
  attempt(outcome: AttemptMetricOutcome, durationMs: number | null): void;
}

/** Seconds: a local receiver answers in milliseconds, a slow one up to WEBHOOK_TIMEOUT_MS (5 s by default). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The backlog count stops here: past a million due deliveries the exact figure matters less than the scrape's cost. */
const BACKLOG_COUNT_CAP = 1_000_000;

const byContext = new WeakMap<object, WebhookMetrics>();

/** The metrics the dispatcher of `ctx` reports to, if its API registered them. */
export function webhookMetricsOf(ctx: object): WebhookMetrics | undefined {
  return byContext.get(ctx);
}

export function registerWebhookMetrics(registry: Registry, ctx: Pick<GatewayContext, 'db' | 'log'>): WebhookMetrics {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook attempts recorded, by what became of the delivery (delivered, failed: retry scheduled, dropped: given up, superseded)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome shows from the start (0), so a rate() or an alert on it has a series to read.
  for (const outcome of ['delivered', 'failed', 'dropped', 'superseded'] as const) attempts.inc({ outcome }, 0);
  const duration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Duration of the HTTP exchange of each webhook attempt sent',
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  let warnedAt = 0;
  new Gauge({
    name: 'webhook_deliveries_due',
    help: 'Webhook backlog: pending deliveries due now and not yet claimed by a dispatcher',
    registers: [registry],
    async collect() {
      try {
        const [row] = await ctx.db.$queryRaw<{ due: number }[]>`
          SELECT count(*)::int AS due FROM (
            SELECT 1 FROM "WebhookDelivery" WHERE status = 'pending' AND "nextAttemptAt" <= now() LIMIT ${BACKLOG_COUNT_CAP}) AS due`;
        this.set(row?.due ?? 0);
      } catch (error) {
        // The scrape still answers (without a fresh backlog figure); the log says why, once a minute.
        if (Date.now() - warnedAt > 60_000) {
          warnedAt = Date.now();
          ctx.log.warn({ err: error }, 'webhook_deliveries_due: the database did not answer');
        }
      }
    },
  });
  const metrics: WebhookMetrics = {
    attempt(outcome, durationMs) {
      attempts.inc({ outcome });
      if (durationMs !== null) duration.observe(durationMs / 1000);
    },
  };
  byContext.set(ctx, metrics);
  return metrics;
}
