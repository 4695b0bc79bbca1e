/**
 * The sandbox wallet provider: outcomes follow the phone number's last four digits, the way test
 * card numbers work (DESIGN.md's table), so every path can be driven from a test or by hand.
 *
 * | ends with | collect (checkout)               | refund                       | payout                    |
 * |-----------|----------------------------------|------------------------------|---------------------------|
 * | 0000      | fails (insufficient funds)       | fails                        | fails                     |
 * | 1111      | stays pending (never confirmed)  | times out (stays pending)    | times out (stays pending) |
 * | 0009      | succeeds                         | fails at the provider        | succeeds                  |
 * | other     | succeeds                         | succeeds                     | succeeds                  |
 *
 * A refund is decided by the wallet the payment came FROM (the payer's phone); a payout by the
 * recipient's wallet. `payoutStatus` answers like `refundStatus` (a timed-out payout went
 * through after all), and a payout sent again with a reference already received is not sent
 * again: its first answer is returned (a real provider de-duplicates on our reference too).
 *
 * `collectStatus` and `refundStatus` answer from what this sandbox was sent (kept in memory, bounded): a refund
 * that timed out (1111) went through after all (`succeeded`), the others keep their answer, and a
 * reference it never received (sent by a process that crashed before the call, or by another
 * process) is `not_found`.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentProvider, ProviderAnswer, ProviderRequest, ProviderStatusAnswer } from '../../domain/ports.js';

export interface SandboxOptions {
  /** Artificial latency of every call (SANDBOX_LATENCY_MS): lets tests overlap two calls. */
  latencyMs?: number;
}

/** A stable provider id per our reference: the same call asked twice gets the same answer. */
const providerReferenceOf = (kind: string, request: ProviderRequest): string =>
  `sbx_${kind}_${createHash('sha256').update(`${kind}:${request.reference}`).digest('hex').slice(0, 20)}`;

const suffixOf = (phone: string): string => phone.replace(/\D/g, '').slice(-4);

/** Most calls of each kind the sandbox remembers for its status questions (oldest forgotten first). */
const MAX_REMEMBERED_CALLS = 10_000;

export function createSandboxProvider(options: SandboxOptions = {}): PaymentProvider {
  const latency = async () => {
    if (options.latencyMs) await sleep(options.latencyMs);
  };
  const collects = new Map<string, ProviderStatusAnswer>();
  const refunds = new Map<string, ProviderStatusAnswer>();
  const payouts = new Map<string, ProviderStatusAnswer>();
  const remember = (calls: Map<string, ProviderStatusAnswer>, reference: string, answer: ProviderStatusAnswer) => {
    calls.delete(reference);
    calls.set(reference, answer);
    if (calls.size > MAX_REMEMBERED_CALLS) calls.delete(calls.keys().next().value as string);
  };
  return {
    async collect(request): Promise<ProviderAnswer> {
      await latency();
      const suffix = suffixOf(request.phone);
      const providerReference = providerReferenceOf('collect', request);
      const answer: ProviderAnswer =
        suffix === '0000'
          ? { status: 'failed', providerReference, reason: 'insufficient funds on the wallet' }
          : suffix === '1111'
            ? { status: 'pending', providerReference, reason: 'the customer has not confirmed' }
            : { status: 'succeeded', providerReference };
      remember(collects, request.reference, answer);
      return answer;
    },
    async refund(request): Promise<ProviderAnswer> {
      await latency();
      const suffix = suffixOf(request.phone);
      const providerReference = providerReferenceOf('refund', request);
      if (suffix === '0000' || suffix === '0009') {
        const reason = `${request.method} refused the refund`;
        remember(refunds, request.reference, { status: 'failed', providerReference: '', reason });
        return { status: 'failed', providerReference: '', reason };
      }
      if (suffix === '1111') {
        // The wallet processed it; only its answer was lost on the way back.
        remember(refunds, request.reference, { status: 'succeeded', providerReference });
        return { status: 'pending', providerReference: '', reason: 'the provider did not answer in time' };
      }
      remember(refunds, request.reference, { status: 'succeeded', providerReference });
      return { status: 'succeeded', providerReference };
    },
    async collectStatus(reference): Promise<ProviderStatusAnswer> {
      await latency();
      return collects.get(reference) ?? { status: 'not_found', providerReference: '', reason: 'no payment request was received with this reference' };
    },
    async refundStatus(reference): Promise<ProviderStatusAnswer> {
      await latency();
      return refunds.get(reference) ?? { status: 'not_found', providerReference: '', reason: 'no refund was received with this reference' };
    },
    async payout(request): Promise<ProviderAnswer> {
      await latency();
      const received = payouts.get(request.reference);
      if (received) return { status: received.status === 'not_found' ? 'failed' : received.status, providerReference: received.providerReference, reason: received.reason };
      const suffix = suffixOf(request.phone);
      const providerReference = providerReferenceOf('payout', request);
      if (suffix === '0000') {
        const reason = `${request.method} refused the withdrawal: the recipient wallet cannot receive it`;
        remember(payouts, request.reference, { status: 'failed', providerReference: '', reason });
        return { status: 'failed', providerReference: '', reason };
      }
      // 1111: the wallet received the money; only the provider's answer was lost on the way back.
      remember(payouts, request.reference, { status: 'succeeded', providerReference });
      if (suffix === '1111') return { status: 'pending', providerReference: '', reason: 'the provider did not answer in time' };
      return { status: 'succeeded', providerReference };
    },
    async payoutStatus(reference): Promise<ProviderStatusAnswer> {
      await latency();
      return payouts.get(reference) ?? { status: 'not_found', providerReference: '', reason: 'no payout was received with this reference' };
    },
  };
}
