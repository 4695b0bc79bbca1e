/**
 * A provider's health as this process's calls to it saw it (transport.ts feeds every outcome):
 *
 *   - credentials refused (401 / 403) on the last definite answer: down at once, "the provider
 *     refuses the gateway's credentials (the key may be revoked, or the API not granted to it)";
 *   - no definite answer (connection refused, timeouts, 5xx) for SUSTAINED_UNREACHABLE_MS and at
 *     least UNREACHABLE_CALLS calls in a row: down, "unreachable since ...";
 *   - any definite answer (accepted, or a refusal of the request itself) clears both.
 *
 * Rate limiting (429) is neither: the provider answers, it only asks to wait. This is one
 * process's view (its own calls), with when it last got a definite answer and when a call last
 * failed; the instances share their views through PostgreSQL (src/domain/providerCalls/providerHealth.ts),
 * and operators read the shared view through /healthz, /metrics, GraphQL `providerStatus` and
 * `gateway provider status`; the health job logs an error line once per period while a provider is down.
 */
import type { ProviderExchange } from './transport.js';

/** How long calls must go unanswered before the provider counts as down (one blip is not an outage). */
const SUSTAINED_UNREACHABLE_MS = 30_000;
/** ... and in at least this many calls in a row. */
const UNREACHABLE_CALLS = 2;

export interface ProviderHealthState {
  healthy: boolean;
  /** Why it is down, for an operator ('' when healthy). Never a secret. */
  reason: string;
  /** When it went down (null when healthy). */
  since: Date | null;
  /** The last definite answer (accepted, or a refusal of the request itself); null: none yet. */
  lastAnsweredAt: Date | null;
  /** The last call refused for the credentials or left without an answer; null: none yet. */
  lastFailedAt: Date | null;
}

export class ProviderHealthTracker {
  private credentialsRefusedAt: number | null = null;
  private credentialsStatus = 0;
  private unreachableSince: number | null = null;
  private unreachableCalls = 0;
  private lastAnsweredAt: number | null = null;
  private lastFailedAt: number | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  record(exchange: ProviderExchange): void {
    if (exchange.outcome === 'refused' && exchange.credentialsRefused) {
      this.lastFailedAt = this.now();
      this.credentialsRefusedAt ??= this.now();
      this.credentialsStatus = exchange.status;
      this.unreachableSince = null;
      this.unreachableCalls = 0;
      return;
    }
    if (exchange.outcome === 'accepted' || exchange.outcome === 'refused') {
      this.lastAnsweredAt = this.now();
      this.credentialsRefusedAt = null;
      this.unreachableSince = null;
      this.unreachableCalls = 0;
      return;
    }
    if (exchange.outcome === 'not_sent' && exchange.status === 429) return;
    this.lastFailedAt = this.now();
    this.unreachableSince ??= this.now();
    this.unreachableCalls += 1;
  }

  state(): ProviderHealthState {
    const when = {
      lastAnsweredAt: this.lastAnsweredAt === null ? null : new Date(this.lastAnsweredAt),
      lastFailedAt: this.lastFailedAt === null ? null : new Date(this.lastFailedAt),
    };
    if (this.credentialsRefusedAt !== null)
      return {
        healthy: false,
        reason: `the provider refuses the gateway's credentials (HTTP ${this.credentialsStatus}): the API key may be revoked or lack a permission; nothing can be sent until an operator replaces it`,
        since: new Date(this.credentialsRefusedAt),
        ...when,
      };
    if (this.unreachableSince !== null && this.unreachableCalls >= UNREACHABLE_CALLS && this.now() - this.unreachableSince >= SUSTAINED_UNREACHABLE_MS)
      return {
        healthy: false,
        reason: `the provider has not answered since ${new Date(this.unreachableSince).toISOString()} (${this.unreachableCalls} calls without an answer)`,
        since: new Date(this.unreachableSince),
        ...when,
      };
    return { healthy: true, reason: '', since: null, ...when };
  }
}
