/**
 * REST v1 cashout routes: POST /cashout/wave and /cashout/orange-money are v2's POST /payouts
 * with the method taken from the path, the recipient from `full_name` and `phone_number`.
 */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { CreatePayoutInput } from '../../domain/operations/createPayout.js';
import { createPayout } from '../../domain/operations/index.js';
import { toWireAmount } from '../../domain/money.js';
import type { PayoutRecord } from '../../domain/payouts.js';
import { optionalString, parseJsonObject, requiredInteger, requiredString } from '../body.js';
import { bind } from '../pipeline.js';

/**
 * v1 has one name field, v2 two: the first word is the first name, the rest the last name, so a
 * v2 reader sees the name split as v2 would have it and the v1 reply joins it back.
 */
function splitFullName(fullName: string | undefined): { firstName?: string; lastName?: string } {
  const [firstName, ...rest] = (fullName ?? '').trim().split(/\s+/).filter(Boolean);
  return { firstName, lastName: rest.length ? rest.join(' ') : undefined };
}

export function parseCashoutBody(raw: unknown, method: PaymentMethod): CreatePayoutInput {
  const body = parseJsonObject(raw);
  return {
    selectedPaymentMethod: method,
    amount: requiredInteger(body, 'amount'),
    recipient: { ...splitFullName(optionalString(body, 'full_name')), phone: requiredString(body, 'phone_number') },
  };
}

const cashoutReply = (payout: PayoutRecord) => ({
  phone_number: payout.recipientPhone,
  amount: toWireAmount(payout.amount),
  full_name: [payout.recipientFirstName, payout.recipientLastName].filter(Boolean).join(' '),
  status: payout.status,
});

const cashoutWith = (method: PaymentMethod) =>
  bind({
    operation: 'createPayout',
    handle: async (ctx, access, request) => {
      const outcome = await createPayout(ctx, access, parseCashoutBody(request.body, method), { idempotencyKey: request.idempotencyKey });
      return { body: cashoutReply(outcome.value), replayed: outcome.replayed };
    },
  });

export const cashoutRoutes = { cashoutWave: cashoutWith('wave'), cashoutOrangeMoney: cashoutWith('orange_money') };
