/**
 * GET /refund/{order_id} per the spec and docs/architecture.md#refund: full amount only, from paid or
 * paid_and_blocked; main is debited by the amount (fees are not returned); the spec's 400/404 rows;
 * provider failure = 500 with nothing debited and the status unchanged; scopes.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCatalogueError, expectError } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';
import { PHONES, balances, entriesOf, expectLedgerConsistent, paidTransaction, refund, statusOf } from '../../../support/refunds.js';

const gateway = useGateway();

/** A merchant with `extra` already paid into main (so a refund is covered by more than its own proceeds). */
async function merchantWithFunds(options: { scope?: string; escrowEnabled?: boolean } = {}) {
  const merchant = await gateway.merchant({ verified: true, ...options });
  const key = options.scope && options.scope !== 'checkout' ? await gateway.createKey(merchant.organization.id, 'checkout') : merchant.key;
  await paidTransaction(gateway, key, { price: 10_000, feesCustomerSide: true });
  return { ...merchant, checkoutKey: key };
}

describe('GET /refund/{order_id} refunds a paid transaction', () => {
  it('answers 200 {message}, sets refunded, debits main by the amount and keeps the fees', async () => {
    const { organization, key } = await merchantWithFunds();
    const orderId = await paidTransaction(gateway, key, { price: 3000 }); // fee 30 (wave 1 %), main +2970
    const before = await balances(gateway, organization.id);
    expect(before.main).toBe(10_000n + 2970n);

    const response = await refund(gateway, key, orderId);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect(Object.keys(response.body)).toEqual(['message']);

    expect((await balances(gateway, organization.id)).main).toBe(before.main - 3000n);
    const row = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
    expect(row.status).toBe('refunded');
    expect(row.refundedAt).toBeInstanceOf(Date);
    expect(row.fees).toBe(30n);
    const refundRow = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refundRow).toMatchObject({ status: 'succeeded', amount: 3000n, method: 'wave', attempts: 1, organizationId: organization.id });
    expect(refundRow.providerReference).not.toBe('');

    const entries = await entriesOf(gateway, orderId);
    const refundEntries = entries.filter((entry) => entry.kind === 'refund');
    expect(refundEntries.map((entry) => [entry.account?.name ?? entry.gatewayAccount, entry.amount]).sort()).toEqual(
      [
        ['main', -3000n],
        ['provider_clearing_wave', 3000n],
      ].sort(),
    );
    // The gateway keeps its fee: nothing of the refund touches fee revenue.
    expect(entries.filter((entry) => entry.gatewayAccount === 'fee_revenue').map((entry) => entry.amount)).toEqual([30n]);
    await expectLedgerConsistent(gateway, organization.id);

    const read = await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key });
    expect(read.body.transaction_status).toBe('refunded');
  });

  it('refunds through the method the customer used (orange_money clearing)', async () => {
    const { organization, key } = await merchantWithFunds();
    const orderId = await paidTransaction(gateway, key, { price: 2000, method: 'orange_money' });
    expect((await refund(gateway, key, orderId)).status).toBe(200);
    const entries = (await entriesOf(gateway, orderId)).filter((entry) => entry.kind === 'refund');
    expect(entries.find((entry) => entry.gatewayAccount)?.gatewayAccount).toBe('provider_clearing_orange_money');
    await expectLedgerConsistent(gateway, organization.id);
  });

  it('refunds a held (paid_and_blocked) transaction: escrow returns to main, then main is debited', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const orderId = await paidTransaction(gateway, key, { price: 5000, isEscrow: true, feesCustomerSide: true });
    expect(await statusOf(gateway, orderId)).toBe('paid_and_blocked');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 5000n });

    expect((await refund(gateway, key, orderId)).status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    const kinds = (await entriesOf(gateway, orderId)).map((entry) => entry.kind);
    expect(kinds).toContain('escrow_release');
    await expectLedgerConsistent(gateway, organization.id);
  });
});

describe('GET /refund/{order_id} refuses', () => {
  it.each(['pending', 'cancelled'] as const)('a %s transaction with 400 "This Transaction cannot be refund"', async (status) => {
    const { organization, key } = await merchantWithFunds();
    const created = await gateway.rest('POST', '/api/v2/transactions', {
      key,
      body: { method_of_payment: ['wave'], products: [{ name: 'Café Touba', price: 500, quantity: 1 }] },
    });
    const orderId = created.body.order_id;
    if (status === 'cancelled') expect((await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key })).status).toBe(200);
    const before = await balances(gateway, organization.id);
    expectError(await refund(gateway, key, orderId), 400, 'This Transaction cannot be refund');
    expect(await statusOf(gateway, orderId)).toBe(status);
    expect(await balances(gateway, organization.id)).toEqual(before);
    expect(await gateway.ctx.db.refund.count({ where: { transactionId: orderId } })).toBe(0);
  });

  it('an already refunded transaction with 400, debiting nothing more', async () => {
    const { organization, key } = await merchantWithFunds();
    const orderId = await paidTransaction(gateway, key);
    expect((await refund(gateway, key, orderId)).status).toBe(200);
    const after = await balances(gateway, organization.id);
    expectError(await refund(gateway, key, orderId), 400, 'This Transaction cannot be refund');
    expect(await balances(gateway, organization.id)).toEqual(after);
    expect((await entriesOf(gateway, orderId)).filter((entry) => entry.kind === 'refund')).toHaveLength(2);
  });

  it('with 400 "Insufficient balance" when main cannot cover the amount, changing nothing', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    // Fees on the merchant's side: main got 2970 of a 3000 payment, less than the refund.
    const orderId = await paidTransaction(gateway, key, { price: 3000 });
    const before = await balances(gateway, organization.id);
    const entriesBefore = (await entriesOf(gateway, orderId)).length;
    expectError(await refund(gateway, key, orderId), 400, 'Insufficient balance');
    expect(await balances(gateway, organization.id)).toEqual(before);
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect((await entriesOf(gateway, orderId)).length).toBe(entriesBefore);
    expect(await gateway.ctx.db.refund.count({ where: { transactionId: orderId } })).toBe(0);
  });

  it('a held transaction whose proceeds do not cover the amount with 400, leaving it held in escrow', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const orderId = await paidTransaction(gateway, key, { price: 3000, isEscrow: true }); // escrow +2970
    expectError(await refund(gateway, key, orderId), 400, 'Insufficient balance');
    expect(await statusOf(gateway, orderId)).toBe('paid_and_blocked');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 2970n });
  });

  it('an unknown id, a malformed id and another organisation’s transaction with 404, exactly alike', async () => {
    const { key } = await merchantWithFunds();
    const other = await merchantWithFunds();
    const foreign = await paidTransaction(gateway, other.key);
    const otherBefore = await balances(gateway, other.organization.id);
    for (const id of [randomUUID(), 'not-a-uuid', foreign]) expectCatalogueError(await refund(gateway, key, id), 'transaction_not_found');
    expect(await statusOf(gateway, foreign)).toBe('paid');
    expect(await balances(gateway, other.organization.id)).toEqual(otherBefore);
  });

  it('answers 404 for a path without an id (no such route)', async () => {
    const { key } = await gateway.merchant();
    expect((await gateway.rest('GET', '/api/v2/refund/', { key })).status).toBe(404);
  });
});

describe('a refund the provider refuses (payer wallet ending 0009)', () => {
  it('answers 500 with nothing debited and the status unchanged; a retry fails the same way', async () => {
    const { organization, key } = await merchantWithFunds();
    const orderId = await paidTransaction(gateway, key, { phone: PHONES.refundFails });
    const before = await balances(gateway, organization.id);

    const first = await refund(gateway, key, orderId);
    expectCatalogueError(first, 'refund_failed');
    expect(await balances(gateway, organization.id)).toEqual(before);
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect(await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } })).toMatchObject({ status: 'failed', attempts: 1 });

    expectCatalogueError(await refund(gateway, key, orderId), 'refund_failed');
    expect(await balances(gateway, organization.id)).toEqual(before);
    expect(await statusOf(gateway, orderId)).toBe('paid');
    const refundRow = await gateway.ctx.db.refund.findUniqueOrThrow({ where: { transactionId: orderId } });
    expect(refundRow).toMatchObject({ status: 'failed', attempts: 2 });
    expect(refundRow.failureReason).toMatch(/refused/);

    // Each attempt's debit was reversed: net zero on main and on the clearing account.
    const entries = await entriesOf(gateway, orderId);
    expect(entries.filter((entry) => entry.kind === 'refund')).toHaveLength(4);
    expect(entries.filter((entry) => entry.kind === 'refund_reversal')).toHaveLength(4);
    const net = entries
      .filter((entry) => entry.kind === 'refund' || entry.kind === 'refund_reversal')
      .reduce((total, entry) => total + (entry.account?.name === 'main' ? entry.amount : 0n), 0n);
    expect(net).toBe(0n);
    await expectLedgerConsistent(gateway, organization.id);
  });

  it('leaves a held transaction held: paid_and_blocked, its proceeds back in escrow', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const orderId = await paidTransaction(gateway, key, { price: 4000, isEscrow: true, feesCustomerSide: true, phone: PHONES.refundFails });
    expectCatalogueError(await refund(gateway, key, orderId), 'refund_failed');
    expect(await statusOf(gateway, orderId)).toBe('paid_and_blocked');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 4000n });
    await expectLedgerConsistent(gateway, organization.id);
  });
});

describe('who may refund', () => {
  it.each(['checkout', 'write', 'readAndWrite', 'management'])('a %s key may', async (scope) => {
    const { organization, key, checkoutKey } = await merchantWithFunds({ scope });
    const orderId = await paidTransaction(gateway, checkoutKey);
    expect((await refund(gateway, key, orderId)).status).toBe(200);
    expect(await statusOf(gateway, orderId)).toBe('refunded');
    await expectLedgerConsistent(gateway, organization.id);
  });

  it.each(['read', 'payout'])('a %s key gets 403 and changes nothing', async (scope) => {
    const { organization, key, checkoutKey } = await merchantWithFunds({ scope });
    const orderId = await paidTransaction(gateway, checkoutKey);
    const before = await balances(gateway, organization.id);
    expectCatalogueError(await refund(gateway, key, orderId), 'permission_denied');
    expect(await statusOf(gateway, orderId)).toBe('paid');
    expect(await balances(gateway, organization.id)).toEqual(before);
  });

  it('an inactive organisation gets 401 (the refund is a write) and changes nothing', async () => {
    const { organization, key } = await merchantWithFunds();
    const orderId = await paidTransaction(gateway, key);
    await gateway.ctx.db.organization.update({ where: { id: organization.id }, data: { status: 'inactive' } });
    const inactiveKey = await gateway.createKey(organization.id, 'checkout');
    expectCatalogueError(await refund(gateway, inactiveKey, orderId), 'organization_inactive');
    expect(await statusOf(gateway, orderId)).toBe('paid');
  });
});

describe('after a refund', () => {
  it('the transaction cannot be cancelled (400), and stays refunded', async () => {
    const { key } = await merchantWithFunds();
    const orderId = await paidTransaction(gateway, key);
    expectCatalogueError(await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key }), 'cannot_delete_paid');
    expect((await refund(gateway, key, orderId)).status).toBe(200);
    expectCatalogueError(await gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key }), 'cannot_delete_paid');
    expect(await statusOf(gateway, orderId)).toBe('refunded');
  });
});
