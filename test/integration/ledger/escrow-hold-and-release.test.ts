/**
 * Escrow through the operator's GraphQL: an escrow transaction paid in the sandbox becomes
 * paid_and_blocked with its proceeds in escrow (main untouched); releaseEscrow moves exactly them
 * to main and marks it paid, in a balanced posting; of two concurrent releases exactly one moves
 * the money; anything not held answers NOT_IN_ESCROW.
 */
import { describe, expect, it } from 'vitest';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { AccountsWithEntriesDocument, ReleaseEscrowDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { balances, pendingTransaction, postingSums, sandboxPay } from '../../support/accounts.js';

const gateway = useGateway();

/** An escrow-enabled merchant with a paid escrow transaction of 20 000 XOF by wave (proceeds 19 800). */
async function heldTransaction() {
  const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', escrowEnabled: true, verified: true });
  const orderId = await pendingTransaction(gateway, key, { price: 20_000, isEscrow: true });
  const paid = await sandboxPay(gateway, orderId, 'wave');
  return { organization, key, orderId, paid };
}

describe('holding and releasing escrow', () => {
  it('holds the proceeds in escrow, then releases them to main and marks the transaction paid', async () => {
    const { organization, key, orderId, paid } = await heldTransaction();
    expect(paid).toMatchObject({ status: 'paid_and_blocked', isEscrow: true, fees: 200, selectedPaymentMethod: 'wave' });
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 19_800n });
    expect((await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body.transaction_status).toBe('paid_and_blocked');

    const { releaseEscrow } = await graphqlDataTyped(gateway, ReleaseEscrowDocument, { orderId });
    expect(releaseEscrow).toMatchObject({ orderId, status: 'paid', fees: 200, paidAt: paid.paidAt });
    expect(await balances(gateway, organization.id)).toEqual({ main: 19_800n, escrow: 0n });
    expect((await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body.transaction_status).toBe('paid');

    // The release is one posting: escrow -19 800, main +19 800.
    const release = await gateway.ctx.db.ledgerEntry.findMany({ where: { transactionId: orderId, kind: 'escrow_release' }, include: { account: true } });
    expect(release.map((entry) => [entry.account?.name, entry.amount]).sort()).toEqual([
      ['escrow', -19_800n],
      ['main', 19_800n],
    ]);
    expect(new Set(release.map((entry) => entry.postingId)).size).toBe(1);
    expect(Object.values(await postingSums(gateway, [release[0]!.postingId]))).toEqual([0n]);

    // The merchant's own view: main's newest entry is the release, escrow shows hold then release.
    const accounts = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, {}, key)).accounts;
    expect(accounts[0]!.entries.entries.map((entry: any) => [entry.kind, entry.amount])).toEqual([['escrow_release', 19_800]]);
    expect(accounts[1]!.entries.entries.map((entry: any) => [entry.kind, entry.amount, entry.balanceAfter])).toEqual([
      ['escrow_release', -19_800, 0],
      ['escrow_hold', 19_800, 19_800],
    ]);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('moves the money once when two releases race: one answer is the transaction, the other NOT_IN_ESCROW', async () => {
    const { organization, orderId } = await heldTransaction();
    const answers = await Promise.all([1, 2].map(() => graphqlTyped(gateway, ReleaseEscrowDocument, { orderId }, gateway.adminToken)));

    const released = answers.filter((answer) => !answer.body.errors);
    const refused = answers.filter((answer) => answer.body.errors);
    expect(released).toHaveLength(1);
    expect(released[0]!.body.data!.releaseEscrow.status).toBe('paid');
    expect(refused).toHaveLength(1);
    expectGraphqlError(refused[0]!, 'not_in_escrow');
    expect(await balances(gateway, organization.id)).toEqual({ main: 19_800n, escrow: 0n });
    expect(await gateway.ctx.db.ledgerEntry.count({ where: { transactionId: orderId, kind: 'escrow_release' } })).toBe(2);
  });

  it('refuses what is not held: released already, paid without escrow, pending; an unknown order is not found', async () => {
    const { key, orderId } = await heldTransaction();
    await graphqlDataTyped(gateway, ReleaseEscrowDocument, { orderId });
    expectGraphqlError(await graphqlTyped(gateway, ReleaseEscrowDocument, { orderId }, gateway.adminToken), 'not_in_escrow');

    const plain = await pendingTransaction(gateway, key, { price: 1_000 });
    await sandboxPay(gateway, plain);
    expectGraphqlError(await graphqlTyped(gateway, ReleaseEscrowDocument, { orderId: plain }, gateway.adminToken), 'not_in_escrow');

    const pending = await pendingTransaction(gateway, key, { isEscrow: true });
    expectGraphqlError(await graphqlTyped(gateway, ReleaseEscrowDocument, { orderId: pending }, gateway.adminToken), 'not_in_escrow');
    expectGraphqlError(
      await graphqlTyped(gateway, ReleaseEscrowDocument, { orderId: '00000000-0000-4000-8000-000000000000' }, gateway.adminToken),
      'transaction_not_found',
    );
    expectGraphqlError(await graphqlTyped(gateway, ReleaseEscrowDocument, { orderId: 'nope' }, gateway.adminToken), 'transaction_not_found');
  });

  it('is the operator’s: a merchant key cannot release its own escrow', async () => {
    const { organization, key, orderId } = await heldTransaction();
    expectGraphqlError(await graphqlTyped(gateway, ReleaseEscrowDocument, { orderId }, key), 'permission_denied');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 19_800n });
  });
});
