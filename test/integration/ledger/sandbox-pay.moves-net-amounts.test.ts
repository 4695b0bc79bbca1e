/**
 * The operator's sandboxPay (GraphQL) runs the checkout's payment: the transaction becomes paid
 * with its method, fees and paid_at, and main moves by the right net amount (wave 1 %, Orange
 * Money 1.5 %, round half up; fees on the customer's side or the merchant's), in a balanced
 * posting. Declined and unconfirmed payments move nothing; a transaction is paid once.
 */
import { describe, expect, it } from 'vitest';
import { expectGraphqlError, RFC3339_UTC } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { AccountsWithEntriesDocument, SandboxPayDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { balances, pendingTransaction, postingSums, sandboxPay } from '../../support/accounts.js';

const gateway = useGateway();

// 10 050 XOF: wave 1 % = 100.5 -> 101; Orange Money 1.5 % = 150.75 -> 151 (round half up).
const AMOUNT = 10_050;
const CASES = [
  { method: 'wave', fee: 101, feesCustomerSide: false, main: AMOUNT - 101 },
  { method: 'wave', fee: 101, feesCustomerSide: true, main: AMOUNT },
  { method: 'orange_money', fee: 151, feesCustomerSide: false, main: AMOUNT - 151 },
  { method: 'orange_money', fee: 151, feesCustomerSide: true, main: AMOUNT },
] as const;

describe('sandboxPay moves main by the net amount', () => {
  it.each(CASES)('$method, fees_customer_side $feesCustomerSide: fee $fee, main +$main', async ({ method, fee, feesCustomerSide, main }) => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const orderId = await pendingTransaction(gateway, key, { price: AMOUNT, feesCustomerSide });

    const paid = await sandboxPay(gateway, orderId, method);
    expect(paid).toMatchObject({ orderId, status: 'paid', selectedPaymentMethod: method, fees: fee, amount: AMOUNT });

    // The wire says the same.
    const read = (await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body;
    expect(read).toMatchObject({ transaction_status: 'paid', selected_payment_method: method, fees: fee, amount: AMOUNT });
    expect(read.paid_at).toMatch(RFC3339_UTC);
    expect(await balances(gateway, organization.id)).toEqual({ main: BigInt(main), escrow: 0n });

    // One payment posting: clearing -charged, main +proceeds, fee revenue +fee; it sums to zero.
    const entries = await gateway.ctx.db.ledgerEntry.findMany({ where: { transactionId: orderId } });
    const charged = feesCustomerSide ? AMOUNT + fee : AMOUNT;
    expect(entries.map((entry) => [entry.gatewayAccount ?? 'main', entry.amount]).sort()).toEqual(
      [
        [`provider_clearing_${method}`, BigInt(-charged)],
        ['fee_revenue', BigInt(fee)],
        ['main', BigInt(main)],
      ].sort(),
    );
    expect(Object.values(await postingSums(gateway, [...new Set(entries.map((entry) => entry.postingId))]))).toEqual([0n]);

    // And the merchant sees it in its ledger (GraphQL, its own key).
    const accounts = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, {}, key)).accounts;
    expect(accounts[0]!.entries.entries).toMatchObject([{ kind: 'payment', amount: main, balanceAfter: main, transactionId: orderId }]);
  });

  it('keeps the ledger balanced over all of them', async () => {
    await expectBalancedLedger(gateway.db.prisma);
  });
});

describe('sandboxPay refusals and non-payments move nothing', () => {
  it('a declined wallet (…0000) answers failed with a reason; an unconfirmed one (…1111) pending', async () => {
    const { organization, key } = await gateway.merchant();
    const orderId = await pendingTransaction(gateway, key);
    for (const [phone, outcome] of [
      ['+221770000000', 'failed'],
      ['+221770001111', 'pending'],
    ] as const) {
      const { sandboxPay: payment } = await graphqlDataTyped(gateway, SandboxPayDocument, { orderId, method: 'wave', phone });
      expect(payment).toMatchObject({
        outcome,
        reason: expect.any(String),
        transaction: { status: 'pending', fees: 0, paidAt: null, selectedPaymentMethod: null },
      });
    }
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
    expect(await gateway.ctx.db.ledgerEntry.count({ where: { transactionId: orderId } })).toBe(0);
  });

  it('a second payment of a paid transaction is refused and credits nothing', async () => {
    const { organization, key } = await gateway.merchant();
    const orderId = await pendingTransaction(gateway, key, { price: 5_000 });
    await sandboxPay(gateway, orderId);
    expectGraphqlError(await graphqlTyped(gateway, SandboxPayDocument, { orderId, method: 'wave' }, gateway.adminToken), 'transaction_not_payable', 'paid');
    expect((await balances(gateway, organization.id)).main).toBe(4_950n);
  });

  it('a method the transaction does not offer, an unknown order, a merchant key', async () => {
    const { key } = await gateway.merchant({ scope: 'readAndWrite' });
    const orderId = await pendingTransaction(gateway, key, { methods: ['wave'] });
    expectGraphqlError(
      await graphqlTyped(gateway, SandboxPayDocument, { orderId, method: 'orange_money' }, gateway.adminToken),
      'method_not_offered',
      'orange_money',
    );
    expectGraphqlError(
      await graphqlTyped(gateway, SandboxPayDocument, { orderId: '00000000-0000-4000-8000-000000000000' }, gateway.adminToken),
      'transaction_not_found',
    );
    expectGraphqlError(await graphqlTyped(gateway, SandboxPayDocument, { orderId }, key), 'permission_denied');
  });

  it('without method and phone: the first method on offer, paid from the customer’s wallet', async () => {
    const { key } = await gateway.merchant();
    const orderId = await pendingTransaction(gateway, key, { methods: ['orange_money', 'wave'] });
    const { sandboxPay: payment } = await graphqlDataTyped(gateway, SandboxPayDocument, { orderId });
    expect(payment).toMatchObject({ outcome: 'paid', transaction: { status: 'paid', selectedPaymentMethod: 'orange_money' } });
  });
});
