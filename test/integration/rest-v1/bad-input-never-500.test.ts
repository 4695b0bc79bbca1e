/**
 * Bad input to REST v1's two write bodies (create-transaction, cashout) always gets a clear 4xx in
 * v1's `{Detail}` shape and writes nothing: 200 seeded mutations of a valid body each, from a
 * merchant whose every create is over its ceiling and whose main account is empty.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mutated, seededRandom, type FieldSetter } from '../../support/fuzz.js';
import { useGateway } from '../../support/gateway.js';
import { fundedMerchant, v1, v1TransactionBody } from './helpers.js';

const gateway = useGateway();
let organizationId: string;
let checkoutKey: string;
let payoutKey: string;
beforeAll(async () => {
  const merchant = await fundedMerchant(gateway, { balance: 0, update: { maxTransactionAmount: 10 } });
  organizationId = merchant.organization.id;
  payoutKey = merchant.key;
  checkoutKey = await gateway.createKey(organizationId, 'checkout');
});

const CREATE_FIELDS: FieldSetter[] = [
  (body, v) => (body.method_of_payment = v),
  (body, v) => (body.products = v),
  (body, v) => (body.products[0] = v),
  (body, v) => (body.products[0].name = v),
  (body, v) => (body.products[0].category = v),
  (body, v) => (body.products[0].amount = v),
  (body, v) => (body.products[0].quantity = v),
  (body, v) => (body.success_url = v),
  (body, v) => (body.fees_customer_side = v),
  (body, v) => (body.is_escrow = v),
];
const CASHOUT_FIELDS: FieldSetter[] = [(body, v) => (body.full_name = v), (body, v) => (body.amount = v), (body, v) => (body.phone_number = v)];

/** Requests whose answer is not a 4xx `{Detail: string}`. */
async function surprisesOf(
  send: (body: unknown) => Promise<{ status: number; body: any }>,
  valid: Record<string, unknown>,
  fields: FieldSetter[],
  seed: number,
) {
  const next = seededRandom(seed);
  const surprises: string[] = [];
  for (let i = 0; i < 200; i++) {
    const body = mutated(valid, fields, next);
    const response = await send(body);
    const wellFormed = typeof response.body?.Detail === 'string' && Object.keys(response.body).length === 1;
    if (response.status >= 500 || response.status < 400 || !wellFormed)
      surprises.push(`${response.status} ${JSON.stringify(response.body)} <- ${JSON.stringify(body).slice(0, 300)}`);
  }
  return surprises;
}

describe('bad v1 input', () => {
  it('never answers 500 nor writes a transaction, for 200 mutated create bodies', async () => {
    expect(await surprisesOf((body) => v1.create(gateway, checkoutKey, body), v1TransactionBody(), CREATE_FIELDS, 1795392000)).toEqual([]);
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId } })).toBe(0);
  });

  it('never answers 500 nor writes a payout, for 200 mutated cashout bodies', async () => {
    const valid = { full_name: 'Awa Diop', amount: 1_000, phone_number: '+221770000001' };
    expect(await surprisesOf((body) => v1.cashout(gateway, payoutKey, 'wave', body), valid, CASHOUT_FIELDS, 1795392001)).toEqual([]);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId } })).toBe(0);
  });
});
