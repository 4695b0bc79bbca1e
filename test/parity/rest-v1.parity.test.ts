/**
 * REST v1 is a second door onto the v2 operations: the same scenario, run through v1, v2 and
 * GraphQL (each on its own fresh organisation of ONE database), gives the same outcomes (status
 * and wording, or the same result) and leaves the same rows: transactions and products, ledger
 * entries, refunds, payouts and balances (test/support/surfaces.ts: moneySurfaces, organizationRows).
 */
import { describe, expect, it } from 'vitest';
import { adjustAccount } from '../../src/domain/operations/index.js';
import { payTransaction } from '../../src/domain/operations/payTransaction.js';
import { useGateway, type MerchantOptions } from '../support/gateway.js';
import { expectBalancedLedger } from '../support/ledger.js';
import { moneySurfaces, organizationRows, type DeleteTwin, type MoneySurface, type Outcome, type PortablePayout, type PortableTransaction } from '../support/surfaces.js';

const gateway = useGateway();
const { surfaces: SURFACES } = moneySurfaces(gateway);

const standard: PortableTransaction = {
  method: 'wave',
  products: [
    { name: 'Thieboudienne', price: 2500, quantity: 2, description: 'Family size' },
    { name: 'Bissap', price: 500, quantity: 1 },
  ],
  successUrl: 'https://shop.example.sn/merci',
  errorUrl: 'https://shop.example.sn/erreur',
};

/** The outcome without what differs between organisations (order ids). */
const comparableOutcome = (outcome: Outcome<unknown>) => (outcome.ok ? { ok: true, value: withoutIds(outcome.value) } : { ok: false, status: outcome.failure.status, message: outcome.failure.message });
const withoutIds = (value: unknown) => (value && typeof value === 'object' ? { ...(value as object), orderId: undefined, id: undefined } : value);

interface Run {
  outcomes: unknown[];
  rows: Awaited<ReturnType<typeof organizationRows>>;
}

/** Runs `scenario` through each surface on a fresh organisation; every surface must give the same run. */
async function expectSameThroughEverySurface(merchant: MerchantOptions, scenario: (surface: MoneySurface, key: string, organizationId: string) => Promise<Outcome<unknown>[]>): Promise<Run> {
  const runs: Record<string, Run> = {};
  for (const surface of SURFACES) {
    const { organization, key } = await gateway.merchant(merchant);
    const outcomes = (await scenario(surface, key, organization.id)).map(comparableOutcome);
    runs[surface.name] = { outcomes, rows: await organizationRows(gateway, organization.id) };
  }
  expect(runs.v1, 'v1 against v2').toEqual(runs.v2);
  expect(runs.graphql, 'GraphQL against v2').toEqual(runs.v2);
  await expectBalancedLedger(gateway.ctx.db);
  return runs.v2!;
}

const pay = async (orderId: string, phone = '+221770000001') => {
  const paid = await payTransaction(gateway.ctx, gateway.operator, orderId, { method: 'wave', phone });
  expect(paid.outcome).toBe('paid');
};
const fund = (organizationId: string, amount: number) => adjustAccount(gateway.ctx, gateway.operator, { organizationId, amount, reason: 'float' });
const orderIdOf = (outcome: Outcome<{ orderId: string }>): string => {
  if (!outcome.ok) throw new Error(`create failed: ${JSON.stringify(outcome.failure)}`);
  return outcome.value.orderId;
};

describe('create-transaction = createTransaction', () => {
  it('creates the same transaction and products', async () => {
    const { rows } = await expectSameThroughEverySurface({}, async (surface, key) => [await surface.create(key, standard)]);
    expect(rows.transactions).toHaveLength(1);
    expect(rows.transactions[0]).toMatchObject({ amount: 5500n, methodOfPayment: ['wave'], status: 'pending' });
  });

  it('passes the flags and defaults the redirect pages the same way', async () => {
    const request: PortableTransaction = { method: 'orange_money', products: [{ name: 'Ticket', price: 800, quantity: 1 }], feesCustomerSide: true, isEscrow: true, isMerchant: true };
    const { rows } = await expectSameThroughEverySurface({ escrowEnabled: true }, async (surface, key) => [await surface.create(key, request)]);
    expect(rows.transactions[0]?.urls).toEqual([expect.stringContaining(':order_id'), expect.stringContaining(':order_id')]);
  });

  it.each<[string, MerchantOptions, PortableTransaction]>([
    ['a total of 10', {}, { ...standard, products: [{ name: 'Gum', price: 10, quantity: 1 }] }],
    ['a zero quantity', {}, { ...standard, products: [{ name: 'Gum', price: 100, quantity: 0 }] }],
    ['no product', {}, { ...standard, products: [] }],
    ['a method the organisation may not use', { allowedMethods: ['orange_money'] }, standard],
    ['escrow not enabled', {}, { ...standard, isEscrow: true }],
    ['an encoded URL', {}, { ...standard, successUrl: 'https://shop.example.sn/a%20b' }],
    ['no business sector', { update: { businessSector: '' } }, standard],
    ['above the configured maximum', { update: { maxTransactionAmount: 1000 } }, standard],
  ])('refuses %s with the same status and wording, creating nothing', async (_name, merchant, request) => {
    const { outcomes, rows } = await expectSameThroughEverySurface(merchant, async (surface, key) => [await surface.create(key, request)]);
    expect(outcomes[0]).toMatchObject({ ok: false });
    expect(rows.transactions).toEqual([]);
  });

  it('refuses an unverified organisation past its monthly limit alike', async () => {
    const big: PortableTransaction = { ...standard, products: [{ name: 'Fridge', price: 150_000, quantity: 1 }] };
    const { outcomes } = await expectSameThroughEverySurface({ verified: false }, async (surface, key) => [await surface.create(key, big), await surface.create(key, big)]);
    expect(outcomes[1]).toMatchObject({ ok: false, status: 403 });
  });
});

describe('delete-transaction = cancelTransaction (pending) or refundTransaction (paid)', () => {
  const scenario = (prepare: (orderId: string, organizationId: string) => Promise<void>, twins: DeleteTwin[]) => async (surface: MoneySurface, key: string, organizationId: string) => {
    const created = await surface.create(key, { ...standard, feesCustomerSide: true });
    const orderId = orderIdOf(created);
    await prepare(orderId, organizationId);
    const outcomes: Outcome<unknown>[] = [created];
    for (const twin of twins) outcomes.push(await surface.remove(key, orderId, twin));
    return outcomes;
  };

  it('cancels a pending transaction; a second delete is "Transaction is already deleted"', async () => {
    const { outcomes, rows } = await expectSameThroughEverySurface({}, scenario(async () => undefined, ['cancel', 'cancel']));
    expect(outcomes.slice(1)).toEqual([{ ok: true, value: undefined }, { ok: false, status: 400, message: 'Transaction is already deleted' }]);
    expect(rows.transactions[0]).toMatchObject({ status: 'cancelled', isDeleted: true });
  });

  it('refunds a paid transaction (ledger entries and refund row alike); a second delete is "This Transaction cannot be refund"', async () => {
    const { outcomes, rows } = await expectSameThroughEverySurface({}, scenario((orderId) => pay(orderId), ['refund', 'refund']));
    expect(outcomes.slice(1)).toEqual([{ ok: true, value: undefined }, { ok: false, status: 400, message: 'This Transaction cannot be refund' }]);
    expect(rows.transactions[0]).toMatchObject({ status: 'refunded' });
    expect(rows.refunds).toEqual([{ amount: 5500n, method: 'wave', status: 'succeeded' }]);
    expect(rows.balances.main).toBe(0n);
  });

  it('refuses a refund main cannot cover with "Insufficient balance", changing nothing', async () => {
    const drain = async (orderId: string, organizationId: string) => {
      await pay(orderId);
      await fund(organizationId, -5500);
    };
    const { outcomes, rows } = await expectSameThroughEverySurface({}, scenario(drain, ['refund']));
    expect(outcomes[1]).toEqual({ ok: false, status: 400, message: 'Insufficient balance' });
    expect(rows.transactions[0]).toMatchObject({ status: 'paid' });
  });

  it('refunds an escrowed transaction, its held proceeds first returned to main', async () => {
    const escrowed = async (surface: MoneySurface, key: string) => {
      const created = await surface.create(key, { ...standard, feesCustomerSide: true, isEscrow: true });
      await pay(orderIdOf(created));
      return [created, await surface.remove(key, orderIdOf(created), 'refund')];
    };
    const { rows } = await expectSameThroughEverySurface({ escrowEnabled: true }, escrowed);
    expect(rows.transactions[0]).toMatchObject({ status: 'refunded' });
    expect(rows.balances).toEqual({ main: 0n, escrow: 0n });
  });

  it('answers an unknown order id with 404 alike', async () => {
    const { outcomes } = await expectSameThroughEverySurface({}, async (surface, key) => [await surface.remove(key, crypto.randomUUID(), 'cancel')]);
    expect(outcomes[0]).toEqual({ ok: false, status: 404, message: 'Transaction not found' });
  });
});

describe('cashout = createPayout', () => {
  const recipient = (phone: string, amount = 10_000, method: PortablePayout['method'] = 'wave'): PortablePayout => ({ method, amount, firstName: 'Moussa', lastName: 'Ndiaye', phone });
  const payouts = (...requests: PortablePayout[]) => async (surface: MoneySurface, key: string, organizationId: string) => {
    await fund(organizationId, 100_000);
    const outcomes: Outcome<unknown>[] = [];
    for (const request of requests) outcomes.push(await surface.payout(key, request));
    return outcomes;
  };
  const payoutMerchant: MerchantOptions = { payoutEnabled: true, scope: 'payout' };

  it('sends, fails (0000) and leaves pending (1111) alike: same payout rows, ledger entries and balance', async () => {
    const { outcomes, rows } = await expectSameThroughEverySurface(
      payoutMerchant,
      payouts(recipient('+221770000001'), recipient('+221770000000', 20_000, 'orange_money'), recipient('+221770001111', 30_000)),
    );
    expect(outcomes[0]).toEqual({ ok: true, value: { amount: 10_000, status: 'completed', phone: '+221770000001' } });
    expect(outcomes[1]).toMatchObject({ ok: false, status: 500 });
    expect(outcomes[2]).toEqual({ ok: true, value: { amount: 30_000, status: 'pending', phone: '+221770001111' } });
    expect(rows.payouts.map((payout) => payout.status)).toEqual(['completed', 'failed', 'pending']);
    expect(rows.balances.main).toBe(100_000n - 10_100n - 30_300n);
  });

  it('refuses what the operation refuses, alike: amount of 10, more than main holds, a bad phone', async () => {
    const { outcomes, rows } = await expectSameThroughEverySurface(payoutMerchant, payouts(recipient('+221770000001', 10), recipient('+221770000001', 100_000), recipient('not a phone', 100)));
    expect(outcomes.map((outcome: any) => outcome.status)).toEqual([400, 400, 400]);
    expect(rows.payouts).toEqual([]);
  });

  it('refuses an organisation without payouts alike', async () => {
    const { outcomes } = await expectSameThroughEverySurface({ scope: 'payout' }, payouts(recipient('+221770000001')));
    expect(outcomes[0]).toMatchObject({ ok: false, status: 403 });
  });
});

describe('idempotency keys across surfaces', () => {
  it('a create retried through each other surface with the same key is one transaction', async () => {
    const { organization, key } = await gateway.merchant();
    const outcomes = [];
    for (const surface of SURFACES) outcomes.push(await surface.create(key, standard, 'one-order'));
    const orderIds = new Set(outcomes.map(orderIdOf));
    expect(orderIds.size).toBe(1);
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: organization.id } })).toBe(1);
  });

  it('a payout retried through each other surface with the same key is one payout', async () => {
    const { organization, key } = await gateway.merchant({ payoutEnabled: true, scope: 'payout' });
    await fund(organization.id, 50_000);
    const outcomes = [];
    for (const surface of SURFACES) outcomes.push(comparableOutcome(await surface.payout(key, { method: 'wave', amount: 10_000, firstName: 'Awa', lastName: 'Diop', phone: '+221770000001' }, 'one-payout')));
    expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome))).size).toBe(1);
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(1);
  });
});

describe('account = the main account of listAccounts', () => {
  it('shows the same main account and balance', async () => {
    const { organization } = await gateway.merchant();
    await fund(organization.id, 4_321);
    const key = await gateway.createKey(organization.id, 'read');
    const views = [];
    for (const surface of SURFACES) {
      const outcome = await surface.mainAccount(key);
      if (!outcome.ok) throw new Error(`${surface.name}: ${JSON.stringify(outcome.failure)}`);
      views.push({ id: outcome.value.id, balance: outcome.value.balance });
    }
    expect(views[0]).toEqual({ id: expect.any(String), balance: 4_321 });
    expect(views[1]).toEqual(views[0]);
    expect(views[2]).toEqual(views[0]);
  });
});
