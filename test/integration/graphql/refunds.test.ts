/**
 * GraphQL `refundTransaction`: the same operation as GET /refund/{order_id}, its errors as
 * extensions.code, its Idempotency-Key shared with REST (one fingerprint per operation and input).
 */
import { describe, expect, it } from 'vitest';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { RefundTransactionDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { PHONES, balances, paidTransaction, refund } from '../../support/refunds.js';

const gateway = useGateway();

describe('GraphQL refundTransaction', () => {
  it('refunds and answers the refunded transaction', async () => {
    const { organization, key } = await gateway.merchant({ verified: true, scope: 'management' });
    const checkoutKey = await gateway.createKey(organization.id, 'checkout');
    const orderId = await paidTransaction(gateway, checkoutKey, { price: 2500, feesCustomerSide: true });
    const response = await graphqlTyped(gateway, RefundTransactionDocument, { orderId }, key);
    expect(response.body.data).toEqual({ refundTransaction: { orderId, status: 'refunded', amount: 2500 } });
    expect(response.body.errors).toBeUndefined();
    expect((await balances(gateway, organization.id)).main).toBe(0n);
  });

  it('answers the catalogue errors: cannot_refund, refund_failed, permission_denied', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const orderId = await paidTransaction(gateway, key, { price: 2500, feesCustomerSide: true });
    await graphqlTyped(gateway, RefundTransactionDocument, { orderId }, key);
    expectGraphqlError(await graphqlTyped(gateway, RefundTransactionDocument, { orderId }, key), 'cannot_refund');
    const failing = await paidTransaction(gateway, key, { price: 2500, feesCustomerSide: true, phone: PHONES.refundFails });
    expectGraphqlError(await graphqlTyped(gateway, RefundTransactionDocument, { orderId: failing }, key), 'refund_failed');
    const readKey = await gateway.createKey(organization.id, 'read');
    expectGraphqlError(await graphqlTyped(gateway, RefundTransactionDocument, { orderId: failing }, readKey), 'permission_denied');
  });

  it('shares the Idempotency-Key with REST: a REST refund replays through GraphQL', async () => {
    const { organization, key } = await gateway.merchant({ verified: true });
    const orderId = await paidTransaction(gateway, key, { price: 2500, feesCustomerSide: true });
    expect((await refund(gateway, key, orderId, 'cross-refund')).status).toBe(200);
    const replayed = await graphqlTyped(gateway, RefundTransactionDocument, { orderId, key: 'cross-refund' }, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.data!.refundTransaction).toEqual({ orderId, status: 'refunded', amount: 2500 });
    expect((await balances(gateway, organization.id)).main).toBe(0n);
  });
});
