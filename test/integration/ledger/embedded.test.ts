/**
 * The money-in flow on the embedded database (PGlite), as a newcomer's `npm start` runs it:
 * create an escrow transaction, pay it in the sandbox, release it, read the accounts (REST and
 * GraphQL) and adjust; the ledger stays balanced.
 */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { AccountsWithEntriesDocument, AdjustAccountDocument, ReleaseEscrowDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';

const gateway = useGateway({ embedded: true });

describe('on the embedded database', () => {
  it('pays, holds, releases, adjusts and shows the balances', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', escrowEnabled: true, verified: true });
    const escrowOrder = await pendingTransaction(gateway, key, { price: 20_000, isEscrow: true });
    const plainOrder = await pendingTransaction(gateway, key, { price: 10_050, feesCustomerSide: true });

    expect(await sandboxPay(gateway, escrowOrder, 'orange_money')).toMatchObject({ status: 'paid_and_blocked', fees: 300 });
    expect(await sandboxPay(gateway, plainOrder, 'wave')).toMatchObject({ status: 'paid', fees: 101 });
    expect((await gateway.rest('GET', '/api/v2/accounts', { key })).body.map((account: any) => [account.name, account.balance])).toEqual([
      ['main', 10_050],
      ['escrow', 19_700],
    ]);

    expect((await graphqlDataTyped(gateway, ReleaseEscrowDocument, { orderId: escrowOrder })).releaseEscrow.status).toBe('paid');
    await graphqlDataTyped(gateway, AdjustAccountDocument, { organizationId: organization.id, amount: -750, reason: 'chargeback fee' });

    const accounts = (await gateway.rest('GET', '/api/v2/accounts', { key })).body;
    expect(accounts.map((account: any) => [account.name, account.balance])).toEqual([
      ['main', 10_050 + 19_700 - 750],
      ['escrow', 0],
    ]);
    expect((await gateway.rest('GET', '/api/v2/accounts/stats', { key })).body).toStrictEqual({
      total_balance: 29_000,
      account_count: 2,
      active_account_count: 2,
    });
    expect((await gateway.rest('GET', `/api/v2/accounts/${accounts[0].id}`, { key })).body).toStrictEqual(accounts[0]);

    const main = (await graphqlDataTyped(gateway, AccountsWithEntriesDocument, {}, key)).accounts[0]!;
    expect(main.entries.entries.map((entry: any) => entry.kind)).toEqual(['adjustment', 'escrow_release', 'payment']);
    await expectBalancedLedger(gateway.db.prisma);
  });
});
