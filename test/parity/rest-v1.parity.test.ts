/**
 * REST v1 is a second door onto the v2 operations: the same scenario, run through v1, v2 and
 * GraphQL (each on its own fresh organisation of ONE database), gives the same outcomes (status
 * and wording, or the same result) and leaves the same rows: transactions and products, ledger
 * entries, refunds, payouts and balances (test/support/surfaces/money.ts: moneySurfaces, organizationRows).
 * The reads (get-one-transaction, get-transactions) run on ONE organisation instead: each surface
 * reads the same rows and must show the same facts and select the same order ids.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adjustAccount } from '../../src/domain/operations.js';
import { payTransaction } from '../../src/domain/payments/payTransaction.js';
import { useGateway, type MerchantOptions } from '../support/gateway.js';
import { expectBalancedLedger } from '../support/ledger.js';
import {
  moneySurfaces,
  organizationRows,
  type DeleteTwin,
  type MoneySurface,
  type Outcome,
  type PortableListFilter,
  type PortablePayout,
  type PortableTransaction,
  type PortableTransactionRead,
} from '../support/surfaces/money.js';

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
const comparableOutcome = (outcome: Outcome<unknown>) =>
  outcome.ok ? { ok: true, value: withoutIds(outcome.value) } : { ok: false, status: outcome.failure.status, message: outcome.failure.message };
const withoutIds = (value: unknown) => (value && typeof value === 'object' ? { ...(value as object), orderId: undefined, id: undefined } : value);

interface Run {
  outcomes: unknown[];
  rows: Awaited<ReturnType<typeof organizationRows>>;
}

/** Runs `scenario` through each surface on a fresh organisation; every surface must give the same run. */
async function expectSameThroughEverySurface(
  merchant: MerchantOptions,
  scenario: (surface: MoneySurface, key: string, organizationId: string) => Promise<Outcome<unknown>[]>,
): Promise<Run> {
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

const pay = async (orderId: string, phone = '+221770000001', method: PortableTransaction['method'] = 'wave') => {
  const paid = await payTransaction(gateway.ctx, gateway.operator, orderId, { method, phone });
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
    const request: PortableTransaction = {
      method: 'orange_money',
      products: [{ name: 'Ticket', price: 800, quantity: 1 }],
      feesCustomerSide: true,
      isEscrow: true,
      isMerchant: true,
    };
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
    const { outcomes } = await expectSameThroughEverySurface({ verified: false }, async (surface, key) => [
      await surface.create(key, big),
      await surface.create(key, big),
    ]);
    expect(outcomes[1]).toMatchObject({ ok: false, status: 403 });
  });
});

describe('delete-transaction = cancelTransaction (pending) or refundTransaction (paid)', () => {
  const scenario =
    (prepare: (orderId: string, organizationId: string) => Promise<void>, twins: DeleteTwin[]) =>
    async (surface: MoneySurface, key: string, organizationId: string) => {
      const created = await surface.create(key, { ...standard, feesCustomerSide: true });
      const orderId = orderIdOf(created);
      await prepare(orderId, organizationId);
      const outcomes: Outcome<unknown>[] = [created];
      for (const twin of twins) outcomes.push(await surface.remove(key, orderId, twin));
      return outcomes;
    };

  it('cancels a pending transaction; a second delete is "Transaction is already deleted"', async () => {
    const { outcomes, rows } = await expectSameThroughEverySurface(
      {},
      scenario(async () => undefined, ['cancel', 'cancel']),
    );
    expect(outcomes.slice(1)).toEqual([
      { ok: true, value: undefined },
      { ok: false, status: 400, message: 'Transaction is already deleted' },
    ]);
    expect(rows.transactions[0]).toMatchObject({ status: 'cancelled', isDeleted: true });
  });

  it('refunds a paid transaction (ledger entries and refund row alike); a second delete is "This Transaction cannot be refund"', async () => {
    const { outcomes, rows } = await expectSameThroughEverySurface(
      {},
      scenario((orderId) => pay(orderId), ['refund', 'refund']),
    );
    expect(outcomes.slice(1)).toEqual([
      { ok: true, value: undefined },
      { ok: false, status: 400, message: 'This Transaction cannot be refund' },
    ]);
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

describe('get-one-transaction = transaction, get-transactions = transactions', () => {
  const [v1, v2, graphql] = SURFACES;
  const unwrap = <T>(outcome: Outcome<T>, what: string): T => {
    if (!outcome.ok) throw new Error(`${what}: ${JSON.stringify(outcome.failure)}`);
    return outcome.value;
  };

  /**
   * Six transactions of one organisation, created in this order (so listed newest first in the
   * reverse one), each through a surface in turn so no surface only reads its own writes.
   * Quantities above 1 tell a unit price (v1 `amount`, v2 `price`) from a line total.
   */
  const made: Record<'pendingWave' | 'paidOrange' | 'paidWave' | 'cancelled' | 'pendingOrange' | 'refunded', string> = {} as never;
  let key = '';
  let foreignOrderId = '';

  beforeAll(async () => {
    ({ key } = await gateway.merchant());
    const make = async (surface: MoneySurface, request: PortableTransaction) => orderIdOf(await surface.create(key, request));
    made.pendingWave = await make(v1, standard);
    made.paidOrange = await make(v2, { method: 'orange_money', products: [{ name: 'Ticket', price: 800, quantity: 3 }] });
    await pay(made.paidOrange, undefined, 'orange_money');
    // The same amount as pendingWave, for the exact-amount filter.
    made.paidWave = await make(graphql, { ...standard, feesCustomerSide: true });
    await pay(made.paidWave);
    made.cancelled = await make(v1, { method: 'wave', products: [{ name: 'Gum', price: 1_200, quantity: 1 }] });
    unwrap(await v2.remove(key, made.cancelled, 'cancel'), 'cancel');
    made.pendingOrange = await make(v2, {
      method: 'orange_money',
      products: [{ name: 'Attaya', price: 1_500, quantity: 2, description: 'Green tea' }],
      isMerchant: true,
    });
    made.refunded = await make(graphql, { method: 'wave', products: [{ name: 'Fan', price: 7_000, quantity: 1 }] });
    await pay(made.refunded);
    unwrap(await graphql.remove(key, made.refunded, 'refund'), 'refund');
    const other = await gateway.merchant();
    foreignOrderId = orderIdOf(await v2.create(other.key, standard));
  });

  /** Each surface's read; v1 and GraphQL must read exactly as v2 does. */
  async function readThroughEverySurface<T>(read: (surface: MoneySurface) => Promise<Outcome<T>>): Promise<T> {
    const [throughV1, throughV2, throughGraphql] = await Promise.all(SURFACES.map(read));
    expect(throughV1, 'v1 against v2').toEqual(throughV2);
    expect(throughGraphql, 'GraphQL against v2').toEqual(throughV2);
    return unwrap(throughV2!, 'read');
  }

  it('shows each transaction (pending, paid, cancelled, refunded) with the same facts', async () => {
    const views: Record<string, PortableTransactionRead> = {};
    for (const [name, orderId] of Object.entries(made)) views[name] = await readThroughEverySurface((surface) => surface.getOne(key, orderId));
    // The facts themselves, so that three surfaces agreeing on something wrong still fails.
    const summary = (view: PortableTransactionRead) => ({
      orderId: view.orderId,
      amount: view.amount,
      status: view.status,
      methods: view.methods,
      paid: view.paidAt !== null,
    });
    expect(Object.fromEntries(Object.entries(views).map(([name, view]) => [name, summary(view)]))).toEqual({
      // Statuses in v1's words (the vocabulary the v1 clients' enum knows): cancelled and refunded are `done`.
      pendingWave: { orderId: made.pendingWave, amount: 5_500, status: 'pending', methods: ['wave'], paid: false },
      paidOrange: { orderId: made.paidOrange, amount: 2_400, status: 'paid', methods: ['orange_money'], paid: true },
      paidWave: { orderId: made.paidWave, amount: 5_500, status: 'paid', methods: ['wave'], paid: true },
      cancelled: { orderId: made.cancelled, amount: 1_200, status: 'done', methods: ['wave'], paid: false },
      pendingOrange: { orderId: made.pendingOrange, amount: 3_000, status: 'pending', methods: ['orange_money'], paid: false },
      refunded: { orderId: made.refunded, amount: 7_000, status: 'done', methods: ['wave'], paid: true },
    });
    expect(views.pendingWave!.products).toEqual([
      { name: 'Thieboudienne', price: 2_500, quantity: 2, description: 'Family size' },
      { name: 'Bissap', price: 500, quantity: 1, description: null },
    ]);
    expect(views.paidOrange!.products).toEqual([{ name: 'Ticket', price: 800, quantity: 3, description: null }]);
    expect(views.pendingOrange).toMatchObject({ isMerchant: true, isEscrow: false, feesCustomerSide: false });
    expect(views.paidWave).toMatchObject({ feesCustomerSide: true, successUrl: standard.successUrl, errorUrl: standard.errorUrl });
  });

  it('shows a transaction offering several methods (created through v2) by the method paid with, else every offered one', async () => {
    const { key: ownKey } = await gateway.merchant();
    const offeringBoth = { method_of_payment: ['orange_money', 'wave'], products: [{ name: 'Ticket', price: 800, quantity: 1 }] };
    const create = async () => (await gateway.rest('POST', '/api/v2/transactions', { key: ownKey, body: offeringBoth })).body.order_id as string;
    const [paidWithWave, pending] = [await create(), await create()];
    await pay(paidWithWave, undefined, 'wave');
    const methods = [];
    for (const orderId of [paidWithWave, pending]) methods.push((await readThroughEverySurface((surface) => surface.getOne(ownKey, orderId))).methods);
    expect(methods).toEqual([['wave'], ['orange_money', 'wave']]);
  });

  it.each<[string, () => string]>([
    ['an unknown order id', () => crypto.randomUUID()],
    ["another organisation's transaction", () => foreignOrderId],
  ])('answers %s with the same 404', async (_name, orderIdOfCase) => {
    const orderId = orderIdOfCase();
    const failures = await Promise.all(SURFACES.map(async (surface) => comparableOutcome(await surface.getOne(key, orderId))));
    expect(failures).toEqual(SURFACES.map(() => ({ ok: false, status: 404, message: 'Transaction not found' })));
  });

  /** Newest first; cancelled ones are hidden unless asked for by status. */
  const expectedIds = (...names: (keyof typeof made)[]) => names.map((name) => made[name]);
  const listCases: [string, PortableListFilter, () => string[]][] = [
    ['no filter (cancelled hidden)', {}, () => expectedIds('refunded', 'pendingOrange', 'paidWave', 'paidOrange', 'pendingWave')],
    ['status paid', { status: 'paid' }, () => expectedIds('paidWave', 'paidOrange')],
    ['status pending', { status: 'pending' }, () => expectedIds('pendingOrange', 'pendingWave')],
    ['status cancelled', { status: 'cancelled' }, () => expectedIds('cancelled')],
    ['status refunded', { status: 'refunded' }, () => expectedIds('refunded')],
    ['an exact amount', { amount: 5_500 }, () => expectedIds('paidWave', 'pendingWave')],
    ['page 1 of 2 per page', { limit: 2, page: 1 }, () => expectedIds('refunded', 'pendingOrange')],
    ['page 2 of 2 per page', { limit: 2, page: 2 }, () => expectedIds('paidWave', 'paidOrange')],
    ['page 3 of 2 per page', { limit: 2, page: 3 }, () => expectedIds('pendingWave')],
    ['past the last page', { limit: 2, page: 4 }, () => []],
    ['status paid, page 2 of 1 per page', { status: 'paid', limit: 1, page: 2 }, () => expectedIds('paidOrange')],
  ];

  it.each(listCases)('lists %s: the same order ids in the same order, with the same facts', async (_name, filter, expected) => {
    const listed = await readThroughEverySurface((surface) => surface.list(key, filter));
    expect(listed.map((view) => view.orderId)).toEqual(expected());
    // A listed transaction is what get-one shows of it.
    for (const view of listed) expect(view).toEqual(unwrap(await v2.getOne(key, view.orderId), 'get'));
  });

  it('lists from a creation instant on alike (created_at_start = startDate)', async () => {
    const from = unwrap(await v2.getOne(key, made.paidWave), 'get').createdAt;
    const listed = await readThroughEverySurface((surface) => surface.list(key, { createdAtStart: from }));
    expect(listed.map((view) => view.orderId)).toEqual(expectedIds('refunded', 'pendingOrange', 'paidWave'));
  });

  // v1's get-transactions has no method filter (openapi/v1.yaml): this one holds between v2 and GraphQL.
  it.each<[PortableTransaction['method'], (keyof typeof made)[]]>([
    ['wave', ['refunded', 'paidWave']],
    ['orange_money', ['paidOrange']],
  ])('selects the transactions paid with %s alike on v2 and GraphQL', async (method, names) => {
    const [throughV2, throughGraphql] = await Promise.all([v2.list(key, { paymentMethod: method }), graphql.list(key, { paymentMethod: method })]);
    expect(throughGraphql).toEqual(throughV2);
    expect(unwrap(throughV2, 'v2 list').map((view) => view.orderId)).toEqual(expectedIds(...names));
  });
});

describe('cashout = createPayout', () => {
  const recipient = (phone: string, amount = 10_000, method: PortablePayout['method'] = 'wave'): PortablePayout => ({
    method,
    amount,
    firstName: 'Moussa',
    lastName: 'Ndiaye',
    phone,
  });
  const payouts =
    (...requests: PortablePayout[]) =>
    async (surface: MoneySurface, key: string, organizationId: string) => {
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
    const { outcomes, rows } = await expectSameThroughEverySurface(
      payoutMerchant,
      payouts(recipient('+221770000001', 10), recipient('+221770000001', 100_000), recipient('not a phone', 100)),
    );
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
    for (const surface of SURFACES)
      outcomes.push(
        comparableOutcome(
          await surface.payout(key, { method: 'wave', amount: 10_000, firstName: 'Awa', lastName: 'Diop', phone: '+221770000001' }, 'one-payout'),
        ),
      );
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
