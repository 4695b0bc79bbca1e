/**
 * Bad input to POST /api/v2/payouts always gets a clear 4xx in the API's error shape and moves no
 * money: 300 seeded mutations of a valid body, sent by a merchant whose main account is empty (so
 * even a body that stays valid is refused, and any payout row or ledger entry would be a bug).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mutated, seededRandom, type FieldSetter } from '../../../support/fuzz.js';
import { useGateway } from '../../../support/gateway.js';
import { fundedMerchant, mainBalance, payoutBody, postPayout } from '../../../support/payouts.js';

const gateway = useGateway();
let key: string;
let organizationId: string;
beforeAll(async () => {
  ({
    key,
    organization: { id: organizationId },
  } = await fundedMerchant(gateway, { balance: 0 }));
});

const PAYOUT_FIELDS: FieldSetter[] = [
  (body, v) => (body.selected_payment_method = v),
  (body, v) => (body.amount = v),
  (body, v) => (body.recipient = v),
  (body, v) => (body.recipient.first_name = v),
  (body, v) => (body.recipient.last_name = v),
  (body, v) => (body.recipient.phone = v),
  (body, v) => (body.reason = v),
];

describe('bad payout input', () => {
  it('never answers 500 nor moves money, for 300 mutated bodies', async () => {
    const next = seededRandom(20261123);
    const surprises: string[] = [];
    for (let i = 0; i < 300; i++) {
      const body = mutated(payoutBody(), PAYOUT_FIELDS, next);
      const response = await postPayout(gateway, key, body);
      const wellFormed = typeof response.body?.error === 'string' && Object.keys(response.body).length === 1;
      if (response.status >= 500 || response.status < 400 || !wellFormed)
        surprises.push(`${response.status} ${JSON.stringify(response.body)} <- ${JSON.stringify(body).slice(0, 300)}`);
    }
    expect(surprises).toEqual([]);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId } })).toBe(0);
    expect(await gateway.ctx.db.ledgerEntry.count({ where: { payoutId: { not: null }, account: { organizationId } } })).toBe(0);
    expect(await mainBalance(gateway, organizationId)).toBe(0n);
  });
});
