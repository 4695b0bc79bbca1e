/**
 * REST v1 cashout routes: POST /cashout/wave and /cashout/orange-money are v2's POST /payouts
 * with the method taken from the path, the recipient from `full_name` and `phone_number`.
 *
 * The v1 SDKs retry a failed or slow cashout, within seconds, without an Idempotency-Key. A
 * cashout sent without one therefore gets a key derived from exactly its fields
 * (../../domain/blindRetries.ts): a retry within the SDKs' retry window replays the first
 * attempt's answer instead of sending money again (a 4xx refusal before money moved is not kept),
 * and the same cashout repeated after it, within 5 minutes of the first, is refused (409). A
 * merchant's own Idempotency-Key is used as given (v2's rules).
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { CreatePayoutInput } from '../../domain/payouts/createPayout.js';
import { createPayout } from '../../domain/operations.js';
import { blindRetryKey } from '../../domain/blindRetries.js';
import { DomainError } from '../../domain/errors.js';
import { toWireAmount } from '../../domain/money.js';
import type { PayoutRecord } from '../../domain/payouts/store.js';
import { optionalString, parseJsonObject, requiredInteger, requiredString } from '../body.js';
import { bind } from '../pipeline.js';
import { toV1PayoutStatus } from './shapes.js';

/**
 * v1 has one name field, v2 two: the first word is the first name, the rest the last name, so a
 * v2 reader sees the name split as v2 would have it and the v1 reply joins it back.
 */
function splitFullName(fullName: string | undefined): { firstName?: string; lastName?: string } {
  const [firstName, ...rest] = (fullName ?? '').trim().split(/\s+/).filter(Boolean);
  return { firstName, lastName: rest.length ? rest.join(' ') : undefined };
}

function parseCashoutBody(raw: unknown, method: PaymentMethod): CreatePayoutInput {
  const body = parseJsonObject(raw);
  return {
    selectedPaymentMethod: method,
    amount: requiredInteger(body, 'amount'),
    recipient: { ...splitFullName(optionalString(body, 'full_name')), phone: requiredString(body, 'phone_number') },
  };
}

/** The status in the v1 clients' enum: `completed` is `done` (shapes.ts). */
const cashoutReply = (payout: PayoutRecord) => ({
  phone_number: payout.recipientPhone,
  amount: toWireAmount(payout.amount),
  full_name: [payout.recipientFirstName, payout.recipientLastName].filter(Boolean).join(' '),
  status: toV1PayoutStatus(payout.status),
});

const STILL_RUNNING = 'An identical cashout (same wallet, phone number, amount and name) is still being processed. Read its outcome before sending another.';

const cashoutWith = (method: PaymentMethod) =>
  bind({
    operation: 'createPayout',
    handle: async (ctx, access, request) => {
      const input = parseCashoutBody(request.body, method);
      const derived = request.idempotencyKey === undefined;
      // Derived from exactly the input the key's fingerprint hashes: a request that differs in any
      // field (a phone spelled otherwise included) is another request, never a 422 on a key the
      // client never sent.
      const idempotencyKey = request.idempotencyKey ?? (await blindRetryKey(ctx, access.organizationId, 'v1-cashout', input));
      try {
        const outcome = await createPayout(ctx, access, input, { idempotencyKey, idempotencyKeyDerived: derived });
        return { body: cashoutReply(outcome.value), replayed: outcome.replayed };
      } catch (error) {
        // The client sent no key: say what is running, not which header it forgot.
        if (derived && error instanceof DomainError && error.code === 'idempotency_key_in_use')
          throw new DomainError('idempotency_key_in_use', '', { message: STILL_RUNNING });
        throw error;
      }
    },
  });

export const cashoutRoutes = { cashoutWave: cashoutWith('wave'), cashoutOrangeMoney: cashoutWith('orange_money') };
