/** The main refund flow on the embedded database (PGlite), as the default install runs it. */
import { describe, expect, it } from 'vitest';
import { settlePendingRefunds } from '../../../src/domain/refunds/refunds.js';
import { expectCatalogueError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { PHONES, balances, expectLedgerConsistent, paidTransaction, refund, statusOf, stubProvider, withProvider } from '../../support/refunds.js';

const gateway = useGateway({ embedded: true });

describe('refunds on the embedded database', () => {
  it('refund, insufficient balance, provider failure, concurrency, a timeout reconciled', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const uncovered = await paidTransaction(gateway, key, { price: 3000 });
    expectCatalogueError(await refund(gateway, key, uncovered), 'insufficient_balance');

    const covered = await paidTransaction(gateway, key, { price: 3000, feesCustomerSide: true });
    const responses = await Promise.all(Array.from({ length: 10 }, () => refund(gateway, key, covered, 'embedded-key')));
    expect(responses.filter((response) => response.status === 200 && response.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(await statusOf(gateway, covered)).toBe('refunded');
    expect((await balances(gateway, organization.id)).main).toBe(2970n);

    const failing = await paidTransaction(gateway, key, { price: 2000, feesCustomerSide: true, phone: PHONES.refundFails });
    expectCatalogueError(await refund(gateway, key, failing), 'refund_failed');
    expect(await statusOf(gateway, failing)).toBe('paid');
    expect((await balances(gateway, organization.id)).main).toBe(4970n);

    const held = await paidTransaction(gateway, key, { price: 1000, isEscrow: true, feesCustomerSide: true });
    expectCatalogueError(await withProvider(gateway, stubProvider('pending'), () => refund(gateway, key, held)), 'refund_unconfirmed');
    await settlePendingRefunds({ ...gateway.ctx, provider: stubProvider('succeeded') }, { olderThanMs: 0 });
    expect(await statusOf(gateway, held)).toBe('refunded');
    expect(await balances(gateway, organization.id)).toEqual({ main: 4970n, escrow: 0n });
    await expectLedgerConsistent(gateway, organization.id);
  });
});
