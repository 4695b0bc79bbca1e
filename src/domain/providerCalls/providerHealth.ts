/**
 * Operators: is each method's wallet provider usable (docs/providers.md "Provider health")? A
 * provider that refuses the gateway's credentials (401/403: a revoked key, an API not granted) or
 * that has not answered for a sustained period is down, with why. Read by GraphQL `providerStatus`
 * and `gateway provider status`, `/healthz`, `/metrics` (`gateway_provider_healthy`), the checkout
 * (which does not send customers to a method whose provider is down), and logged as an error once
 * per period while down.
 *
 * One process learns it from its own calls (src/infra/providers/providerHealth.ts); the instances
 * of a deployment share what they learnt through PostgreSQL (`ProviderHealthReport`): every
 * SHARE_HEALTH_EVERY_MS each instance writes its view and reads the others' (`shareProviderHealth`,
 * a background job), so an outage one instance met is known to all within seconds, whichever
 * instance an operator asks and whichever one a customer's checkout runs on. The views combine as
 * one process's calls do (`combinedHealth`): down when some instance saw it down and no instance
 * got a definite answer after that instance's last failed call; any later answer clears it. A
 * report older than REPORT_FRESH_MS is of an instance that stopped, and no longer counts. Redis is
 * not needed: the database is what every instance (and the embedded mode) already shares.
 */
import { randomUUID } from 'node:crypto';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { PAYMENT_METHODS } from '../enums.js';
import type { ProviderHealth } from '../ports.js';
import { freshProviderHealthReports, purgeProviderHealthReports, writeProviderHealthReports, type ProviderHealthReportRow } from './store.js';

export interface ProviderStatusView extends ProviderHealth {
  method: PaymentMethod;
  /** `wave`, `orange_money`, or `sandbox` when the method runs on the sandbox. */
  provider: string;
}

/** How often a provider that stays down is logged again as an error. */
const PROVIDER_DOWN_LOG_PERIOD_MS = 60_000;

interface HealthSource {
  healthOf(method: PaymentMethod): ProviderHealth & { provider: string };
}

const hasHealth = (provider: unknown): provider is HealthSource => typeof (provider as Partial<HealthSource>).healthOf === 'function';

/** How often each instance reports its view of the providers and reads the others' (the background job). */
export const SHARE_HEALTH_EVERY_MS = 10_000;
/** A report older than this is of an instance that stopped (or lost its database): it no longer counts. */
const REPORT_FRESH_MS = 60_000;
/** Reports kept this long at most (the purge job): a few rows per instance started. */
const REPORT_KEPT_MS = 24 * 60 * 60 * 1000;

/** This process's id in the reports, and the other instances' reports it last read (per gateway context's provider). */
const instanceIds = new WeakMap<object, string>();
const othersReports = new WeakMap<object, ProviderHealthReportRow[]>();

const instanceIdOf = (ctx: Pick<GatewayContext, 'provider'>): string => {
  const known = instanceIds.get(ctx.provider);
  if (known) return known;
  const id = randomUUID();
  instanceIds.set(ctx.provider, id);
  return id;
};

const SANDBOX_HEALTH = { provider: 'sandbox', healthy: true, reason: '', since: null } as const;

/** This process's own view of a method's provider. */
const ownHealthOf = (ctx: Pick<GatewayContext, 'provider'>, method: PaymentMethod): ProviderHealth & { provider: string } =>
  hasHealth(ctx.provider) ? ctx.provider.healthOf(method) : SANDBOX_HEALTH;

/** The methods served by a real provider (the sandbox has no health to share). */
const realMethods = (ctx: Pick<GatewayContext, 'provider'>): PaymentMethod[] =>
  PAYMENT_METHODS.filter((method) => ownHealthOf(ctx, method).provider !== 'sandbox');

/**
 * Several views of one provider as one: down when some view is down and no view got a definite
 * answer after that view's last failed call (the rule one process applies to its own calls: any
 * definite answer clears an outage); then its reason, from the view down the longest.
 */
export function combinedHealth(views: readonly ProviderHealth[]): ProviderHealth {
  const lastAnswer = Math.max(...views.map((view) => view.lastAnsweredAt?.getTime() ?? Number.NEGATIVE_INFINITY));
  const down = views.filter((view) => !view.healthy && !(view.lastFailedAt && lastAnswer > view.lastFailedAt.getTime()));
  if (!down.length) return { healthy: true, reason: '', since: null };
  const longest = down.reduce((a, b) => ((b.since?.getTime() ?? Number.POSITIVE_INFINITY) < (a.since?.getTime() ?? Number.POSITIVE_INFINITY) ? b : a));
  return { healthy: false, reason: longest.reason, since: longest.since };
}

/** Every method's provider health, this instance's view combined with the other instances' (no caller: internal readers). */
export function providerStatuses(ctx: Pick<GatewayContext, 'provider' | 'clock'>): ProviderStatusView[] {
  const freshSince = ctx.clock.now().getTime() - REPORT_FRESH_MS;
  const others = othersReports.get(ctx.provider) ?? [];
  return PAYMENT_METHODS.map((method) => {
    const own = ownHealthOf(ctx, method);
    if (own.provider === 'sandbox') return { method, ...SANDBOX_HEALTH };
    const theirs = others.filter((report) => report.method === method && report.reportedAt.getTime() >= freshSince);
    return { method, provider: own.provider, ...combinedHealth([own, ...theirs]) };
  });
}

/** Reads the other instances' fresh reports into this process (what providerStatuses combines). */
async function readOthersReports(ctx: GatewayContext, methods: PaymentMethod[]): Promise<void> {
  const fresh = await freshProviderHealthReports(ctx.db, methods, new Date(ctx.clock.now().getTime() - REPORT_FRESH_MS));
  const self = instanceIdOf(ctx);
  othersReports.set(
    ctx.provider,
    fresh.filter((report) => report.instanceId !== self),
  );
}

/** The health job: writes this instance's view of each real provider, then reads every other instance's. */
export async function shareProviderHealth(ctx: GatewayContext): Promise<void> {
  const methods = realMethods(ctx);
  if (!methods.length) return;
  const instanceId = instanceIdOf(ctx);
  const reportedAt = ctx.clock.now();
  await writeProviderHealthReports(
    ctx.db,
    methods.map((method) => {
      const own = ownHealthOf(ctx, method);
      return {
        instanceId,
        method,
        provider: own.provider,
        healthy: own.healthy,
        reason: own.reason,
        since: own.since,
        lastAnsweredAt: own.lastAnsweredAt ?? null,
        lastFailedAt: own.lastFailedAt ?? null,
        reportedAt,
      };
    }),
  );
  await readOthersReports(ctx, methods);
}

/** The purge job: reports of instances long stopped. */
export function purgeOldProviderHealthReports(ctx: GatewayContext): Promise<void> {
  return purgeProviderHealthReports(ctx.db, new Date(ctx.clock.now().getTime() - REPORT_KEPT_MS));
}

/** The method runs on the sandbox (no real provider configured for it). */
export const isSandboxed = (ctx: Pick<GatewayContext, 'provider'>, method: PaymentMethod): boolean =>
  !hasHealth(ctx.provider) || ctx.provider.healthOf(method).provider === 'sandbox';

/** The method's provider is known to be down now, by any instance (the checkout offers the other method). */
const providerIsDown = (ctx: Pick<GatewayContext, 'provider' | 'clock'>, method: PaymentMethod): ProviderStatusView | undefined =>
  providerStatuses(ctx).find((status) => status.method === method && !status.healthy);

/**
 * How often one customer is let through to a provider that is down, as a trial. Nothing else
 * would tell this process that the provider is back when no call of its own is open (health is
 * learnt from calls): without trials a recovered provider would stay "down", and its method off,
 * until a restart. One customer per period may meet the outage and choose the other method.
 */
const TRIAL_PERIOD_MS = 30_000;
const lastTrial = new WeakMap<object, Map<PaymentMethod, number>>();

/**
 * Whether the checkout keeps a customer out of this method: its provider is down, and this is not
 * the one customer per TRIAL_PERIOD_MS let through as a trial (the first trial comes a period after
 * the provider went down). The trial's answer, through the transport, clears the outage or keeps it.
 */
export function keepsCustomersOut(ctx: Pick<GatewayContext, 'provider' | 'clock'>, method: PaymentMethod, nowMs: number = Date.now()): boolean {
  const down = providerIsDown(ctx, method);
  if (!down) return false;
  const trials = lastTrial.get(ctx.provider) ?? new Map<PaymentMethod, number>();
  lastTrial.set(ctx.provider, trials);
  const since = trials.get(method) ?? down.since?.getTime() ?? nowMs;
  if (nowMs - since < TRIAL_PERIOD_MS) return true;
  trials.set(method, nowMs);
  return false;
}

/**
 * GraphQL and the CLI: operators only (the reason names the gateway's own credentials). The other
 * instances' reports are read first, so an operator sees what they reported last, not what the job
 * read up to SHARE_HEALTH_EVERY_MS ago.
 */
export async function listProviderStatuses(ctx: GatewayContext, caller: Caller): Promise<ProviderStatusView[]> {
  authorize(caller, 'listProviderStatuses');
  const methods = realMethods(ctx);
  if (methods.length) await readOthersReports(ctx, methods);
  return providerStatuses(ctx);
}

const lastLogged = new WeakMap<object, Map<PaymentMethod, number>>();

/** The health job: an error line per provider that is down (by any instance's view), at most once per period (per process). */
export async function logProvidersDown(ctx: GatewayContext): Promise<number> {
  const now = ctx.clock.now().getTime();
  const logged = lastLogged.get(ctx.provider) ?? new Map<PaymentMethod, number>();
  lastLogged.set(ctx.provider, logged);
  let down = 0;
  for (const status of providerStatuses(ctx)) {
    if (status.healthy) {
      logged.delete(status.method);
      continue;
    }
    down += 1;
    if (now - (logged.get(status.method) ?? Number.NEGATIVE_INFINITY) < PROVIDER_DOWN_LOG_PERIOD_MS) continue;
    logged.set(status.method, now);
    ctx.log.error({ method: status.method, provider: status.provider, since: status.since?.toISOString() }, `a wallet provider is down: ${status.reason}`);
  }
  return down;
}
