/**
 * One PaymentProvider for the whole gateway (ctx.provider) that hands each call to the provider
 * of its method: a real one where the operator configured it (Wave, Orange Money), the sandbox
 * otherwise (docs/providers.md). The domain never asks which provider it talks to.
 *
 * Calls carry their method (the request's `method`); status questions take it as their second
 * argument. A status question without a method goes to the sandbox: every domain caller passes
 * one, and a missing one can only make a call look "not found", which keeps it open (never failed).
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import {
  closesCollections,
  reportsHealth,
  resendsSafely,
  type ClosesCollections,
  type PaymentProvider,
  type ProviderHealth,
  type ResendsSafely,
} from '../../domain/ports.js';

export type ProvidersByMethod = Partial<Record<PaymentMethod, PaymentProvider>>;

export interface ProviderRouter extends PaymentProvider, ClosesCollections, ResendsSafely {
  /** Each method's provider health: the sandbox (no real provider) is always healthy. */
  healthOf(method: PaymentMethod): ProviderHealth & { provider: string };
  /** The provider serving `method` (the sandbox when none is configured for it). */
  providerFor(method: PaymentMethod): PaymentProvider;
  /** The methods served by a real provider, for the start-up line and the reconciliation. */
  realMethods(): PaymentMethod[];
}

export function createProviderRouter(sandbox: PaymentProvider, providers: ProvidersByMethod = {}): ProviderRouter {
  const providerFor = (method: PaymentMethod | undefined): PaymentProvider => (method && providers[method]) || sandbox;
  return {
    providerFor,
    realMethods: () => (Object.keys(providers) as PaymentMethod[]).filter((method) => providers[method]),
    resendsSafely: (kind, method) => resendsSafely(providerFor(method), kind, method),
    healthOf: (method) => {
      const provider = providers[method];
      if (!provider) return { provider: 'sandbox', healthy: true, reason: '', since: null };
      return { provider: method, ...(reportsHealth(provider) ? provider.health() : { healthy: true, reason: '', since: null }) };
    },
    collect: (request) => providerFor(request.method).collect(request),
    collectStatus: (reference, method, openedAt) => providerFor(method).collectStatus(reference, method, openedAt),
    refund: (request) => providerFor(request.method).refund(request),
    refundStatus: (reference, method, paymentReference) => providerFor(method).refundStatus(reference, method, paymentReference),
    payout: (request) => providerFor(request.method).payout(request),
    payoutStatus: (reference, method) => providerFor(method).payoutStatus(reference, method),
    cancelCollection: async (reference, method) => {
      const provider = providerFor(method);
      return closesCollections(provider)
        ? provider.cancelCollection(reference, method)
        : { status: 'processing', providerReference: '', reason: 'this provider cannot close a collection early' };
    },
  };
}

/** The router behind ctx.provider, when it is one (tests may give a bare provider). */
export function providerForMethod(provider: PaymentProvider, method: PaymentMethod): PaymentProvider {
  return 'providerFor' in provider && typeof (provider as ProviderRouter).providerFor === 'function'
    ? (provider as ProviderRouter).providerFor(method)
    : provider;
}
