/**
 * Operators: is each method's wallet provider usable (docs/providers.md "Provider health")? A
 * provider that refuses the gateway's credentials (401/403: a revoked key, an API not granted) or
 * that has not answered for a sustained period is down, with why (src/infra/providers/providerHealth.ts
 * decides from this process's calls). Read by GraphQL `providerStatus` and `gateway provider status`,
 * `/healthz`, `/metrics` (`gateway_provider_healthy`), the checkout (which does not send customers to
 * a method whose provider is down), and logged as an error once per period while down.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { PAYMENT_METHODS } from '../enums.js';
import type { ProviderHealth } from '../ports.js';

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

/** Every method's provider health, as this process sees it (no caller: internal readers). */
export function providerStatuses(ctx: Pick<GatewayContext, 'provider'>): ProviderStatusView[] {
  return PAYMENT_METHODS.map((method) => {
    const health = hasHealth(ctx.provider) ? ctx.provider.healthOf(method) : { provider: 'sandbox', healthy: true, reason: '', since: null };
    return { method, ...health };
  });
}

/** The method runs on the sandbox (no real provider configured for it). */
export const isSandboxed = (ctx: Pick<GatewayContext, 'provider'>, method: PaymentMethod): boolean =>
  !hasHealth(ctx.provider) || ctx.provider.healthOf(method).provider === 'sandbox';

/** The method's provider is known to be down now (the checkout offers the other method). */
const providerIsDown = (ctx: Pick<GatewayContext, 'provider'>, method: PaymentMethod): ProviderStatusView | undefined =>
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
export function keepsCustomersOut(ctx: Pick<GatewayContext, 'provider'>, method: PaymentMethod, nowMs: number = Date.now()): boolean {
  const down = providerIsDown(ctx, method);
  if (!down) return false;
  const trials = lastTrial.get(ctx.provider) ?? new Map<PaymentMethod, number>();
  lastTrial.set(ctx.provider, trials);
  const since = trials.get(method) ?? down.since?.getTime() ?? nowMs;
  if (nowMs - since < TRIAL_PERIOD_MS) return true;
  trials.set(method, nowMs);
  return false;
}

/** GraphQL and the CLI: operators only (the reason names the gateway's own credentials). */
export function listProviderStatuses(ctx: GatewayContext, caller: Caller): ProviderStatusView[] {
  authorize(caller, 'listOpenProviderCalls');
  return providerStatuses(ctx);
}

const lastLogged = new WeakMap<object, Map<PaymentMethod, number>>();

/** The health job: an error line per provider that is down, at most once per period (per process). */
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
