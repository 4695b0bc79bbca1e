/**
 * Payouts on GraphQL: the same operations as REST v2 for merchants (`createPayout` with scope
 * payout; `payout` and `payouts` with payout or read), their errors as extensions.code, the
 * Idempotency-Key shared with REST; and the operators' review queue (`pendingPayouts` across
 * organisations, any role) decided by admins only (`approvePayout`, `rejectPayout`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { print } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import {
  ApprovePayoutDocument,
  CreatePayoutDocument,
  type CreatePayoutInput,
  PayoutDocument,
  PayoutsDocument,
  type PayoutsQueryVariables,
  PendingPayoutsDocument,
  RejectPayoutDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { PHONES, countingProvider, fundedMerchant, mainBalance, payoutBody, postPayout, withProvider } from '../../support/payouts.js';

const gateway = useGateway({ redis: true });

const LARGE = 2_500_000;
const LARGE_DEBIT = 2_525_000n; // + 1 % fee

const input = (overrides: Partial<CreatePayoutInput> = {}): CreatePayoutInput => ({
  selectedPaymentMethod: 'wave',
  amount: 10_000,
  recipient: { firstName: 'Moussa', lastName: 'Ndiaye', phone: PHONES.succeeds },
  reason: 'Supplier invoice 42',
  ...overrides,
});

/** An operator token with the read-only `analyst` role, issued straight into the database. */
let analystToken: string;
beforeAll(async () => {
  analystToken = `gw_op_${randomBytes(32).toString('base64url')}`;
  await gateway.ctx.db.operatorToken.create({ data: { role: 'analyst', prefix: analystToken.slice(0, 14), tokenDigest: sha256Hex(analystToken) } });
});

describe('GraphQL payouts for merchants', () => {
  it('createPayout sends it at once; payout and payouts read it back with a payout or read key', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const { createPayout: payout } = await graphqlDataTyped(gateway, CreatePayoutDocument, { input: input({ amount: 250_000 }) }, key);
    expect(payout).toMatchObject({
      organizationId: organization.id,
      selectedPaymentMethod: 'wave',
      amount: 250_000,
      fees: 2_500,
      currency: 'XOF',
      recipient: { firstName: 'Moussa', lastName: 'Ndiaye', phone: PHONES.succeeds },
      status: 'completed',
      awaitingReview: false,
      reason: 'Supplier invoice 42',
      failureReason: null,
      isDeleted: false,
      paidAt: expect.any(String),
      sentAt: expect.any(String),
    });
    expect(payout.providerReference).toMatch(/^sbx_payout_/);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 252_500n);

    // The same payout as REST's, field for field.
    const rest = (await gateway.rest('GET', `/api/v2/payouts/${payout.orderId}`, { key })).body;
    expect([rest.order_id, rest.amount, rest.fees, rest.payout_status, rest.provider_reference, rest.paid_at]).toEqual([
      payout.orderId,
      payout.amount,
      payout.fees,
      payout.status,
      payout.providerReference,
      payout.paidAt,
    ]);

    const readKey = await gateway.createKey(organization.id, 'read');
    for (const token of [key, readKey]) {
      expect((await graphqlDataTyped(gateway, PayoutDocument, { orderId: payout.orderId }, token)).payout).toEqual(payout);
    }
    // A second one (the other method, a timed-out recipient) for the filters.
    const pending = (
      await graphqlDataTyped(
        gateway,
        CreatePayoutDocument,
        { input: input({ selectedPaymentMethod: 'orange_money', amount: 5_000, recipient: { phone: PHONES.timesOut }, reason: 'Deposit back' }) },
        key,
      )
    ).createPayout;
    expect(pending).toMatchObject({ status: 'pending', awaitingReview: false, recipient: { firstName: null, lastName: null, phone: PHONES.timesOut } });

    const list = async (variables: PayoutsQueryVariables) => (await graphqlDataTyped(gateway, PayoutsDocument, variables, readKey)).payouts;
    expect(await list({})).toEqual({
      payouts: [
        { orderId: pending.orderId, amount: 5_000, status: 'pending' },
        { orderId: payout.orderId, amount: 250_000, status: 'completed' },
      ],
      pagination: { page: 1, limit: 20, totalCount: 2, totalPages: 1 },
    });
    const ids = async (filter: PayoutsQueryVariables['filter']) => (await list({ filter })).payouts.map((row: { orderId: string }) => row.orderId);
    expect(await ids({ recipientPhone: PHONES.timesOut })).toEqual([pending.orderId]);
    expect(await ids({ status: 'completed' })).toEqual([payout.orderId]);
    expect(await ids({ paymentMethod: 'orange_money' })).toEqual([pending.orderId]);
    expect(await ids({ minAmount: 6_000, maxAmount: 300_000 })).toEqual([payout.orderId]);
    expect(await ids({ search: 'invoice 42' })).toEqual([payout.orderId]);
    expect(await ids({ startDate: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(await list({ page: 2, limit: 1 })).toMatchObject({
      payouts: [{ orderId: payout.orderId }],
      pagination: { page: 2, limit: 1, totalCount: 2, totalPages: 2 },
    });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('answers the catalogue errors, records nothing for a refused request, and hides other organisations’ payouts', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    const refused = async (variables: { input: CreatePayoutInput }, code: Parameters<typeof expectGraphqlError>[1], detail = '') =>
      expectGraphqlError(await graphqlTyped(gateway, CreatePayoutDocument, variables, key), code, detail);
    await refused({ input: input({ amount: 10 }) }, 'invalid_amount', 'the amount must be greater than 10 XOF');
    await refused({ input: input({ recipient: { firstName: 'Moussa' } }) }, 'invalid_request_body', 'recipient.phone is required');
    await refused({ input: input({ amount: 99_500 }) }, 'insufficient_balance');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);
    // The provider refuses (...0000): recorded failed, amount and fees returned.
    await refused({ input: input({ recipient: { phone: PHONES.fails } }) }, 'payout_failed', 'wave');
    expect(await mainBalance(gateway, organization.id)).toBe(100_000n);
    expect((await graphqlDataTyped(gateway, PayoutsDocument, { filter: { status: 'failed' } }, key)).payouts.pagination.totalCount).toBe(1);
    expectGraphqlError(
      await graphqlTyped(gateway, PayoutsDocument, { filter: { minAmount: 500, maxAmount: 100 } }, key),
      'invalid_query',
      'min_amount is greater than max_amount',
    );

    // Another organisation's payout answers exactly like a missing one; naming it is refused.
    const other = await fundedMerchant(gateway);
    const foreign = (await graphqlDataTyped(gateway, CreatePayoutDocument, { input: input() }, other.key)).createPayout;
    for (const orderId of [foreign.orderId, randomUUID(), 'not-an-id'])
      expectGraphqlError(await graphqlTyped(gateway, PayoutDocument, { orderId }, key), 'payout_not_found');
    expectGraphqlError(await graphqlTyped(gateway, PayoutsDocument, { organizationId: other.organization.id }, key), 'permission_denied');

    // Scopes: payout creates; payout or read reads; checkout does neither; read does not create.
    const [readKey, checkoutKey] = await Promise.all([gateway.createKey(organization.id, 'read'), gateway.createKey(organization.id, 'checkout')]);
    expectGraphqlError(await graphqlTyped(gateway, CreatePayoutDocument, { input: input() }, readKey), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, CreatePayoutDocument, { input: input() }, checkoutKey), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, PayoutsDocument, {}, checkoutKey), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, PayoutDocument, { orderId: foreign.orderId }, checkoutKey), 'permission_denied');
    // Operators do not create payouts: they are a merchant's.
    expectGraphqlError(await graphqlTyped(gateway, CreatePayoutDocument, { input: input() }, gateway.adminToken), 'permission_denied');
    // An organisation without payouts, as on REST.
    const disabled = await gateway.merchant({ scope: 'payout' });
    expectGraphqlError(await graphqlTyped(gateway, CreatePayoutDocument, { input: input() }, disabled.key), 'payout_not_enabled');
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('shares the Idempotency-Key with REST: a REST payout replays through GraphQL, never sent twice', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const provider = countingProvider(gateway.ctx.provider);
    await withProvider(gateway, provider, async () => {
      const created = await postPayout(gateway, key, payoutBody(), 'cross-payout');
      expect(created.status).toBe(200);
      const replayed = await graphqlTyped(gateway, CreatePayoutDocument, { input: input(), key: 'cross-payout' }, key);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body.data!.createPayout).toMatchObject({ orderId: created.body.order_id, status: 'completed', amount: 10_000 });
      // The header works too, and the same key for another request is refused.
      const byHeader = await gateway.rest('POST', '/graphql', {
        key,
        headers: { 'idempotency-key': 'cross-payout' },
        body: { query: print(CreatePayoutDocument), variables: { input: input() } },
      });
      expect(byHeader.body.data.createPayout.orderId).toBe(created.body.order_id);
      expectGraphqlError(
        await graphqlTyped(gateway, CreatePayoutDocument, { input: input({ amount: 20_000 }), key: 'cross-payout' }, key),
        'idempotency_key_reused',
      );
    });
    expect([...provider.sent.values()]).toEqual([1]);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 10_100n);
  });
});

describe('GraphQL review queue for operators', () => {
  it('pendingPayouts lists payouts awaiting review across organisations; admins approve or reject them', async () => {
    const first = await fundedMerchant(gateway, { balance: 6_000_000 });
    const second = await fundedMerchant(gateway, { balance: 3_000_000 });
    const large = async (merchant: typeof first, phone: string = PHONES.succeeds) =>
      (await graphqlDataTyped(gateway, CreatePayoutDocument, { input: input({ amount: LARGE, recipient: { phone } }) }, merchant.key)).createPayout;
    const toApprove = await large(first);
    const toFail = await large(first, PHONES.fails);
    const toReject = await large(second);
    expect(toApprove).toMatchObject({ status: 'pending', awaitingReview: true, sentAt: null, fees: 25_000 });
    expect(await mainBalance(gateway, second.organization.id)).toBe(3_000_000n - LARGE_DEBIT);

    // Every operator role reads the queue, oldest first, across organisations or for one.
    const queue = (await graphqlDataTyped(gateway, PendingPayoutsDocument, { limit: 100 }, analystToken)).pendingPayouts;
    const mine = queue.payouts.filter((row: { orderId: string }) => [toApprove.orderId, toFail.orderId, toReject.orderId].includes(row.orderId));
    expect(mine.map((row: { orderId: string }) => row.orderId)).toEqual([toApprove.orderId, toFail.orderId, toReject.orderId]);
    expect(mine.every((row: { awaitingReview: boolean; status: string }) => row.awaitingReview && row.status === 'pending')).toBe(true);
    expect((await graphqlDataTyped(gateway, PendingPayoutsDocument, { organizationId: second.organization.id }, analystToken)).pendingPayouts).toEqual({
      payouts: [{ orderId: toReject.orderId, organizationId: second.organization.id, amount: LARGE, status: 'pending', awaitingReview: true }],
      pagination: { totalCount: 1 },
    });
    // Operators read any organisation's payouts too.
    expect((await graphqlDataTyped(gateway, PayoutDocument, { orderId: toReject.orderId }, analystToken)).payout.orderId).toBe(toReject.orderId);
    expect((await graphqlDataTyped(gateway, PayoutsDocument, { organizationId: first.organization.id }, analystToken)).payouts.pagination.totalCount).toBe(2);

    // Merchants have no queue and decide nothing; analysts read but do not decide.
    expectGraphqlError(await graphqlTyped(gateway, PendingPayoutsDocument, {}, first.key), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, ApprovePayoutDocument, { orderId: toApprove.orderId }, first.key), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, RejectPayoutDocument, { orderId: toApprove.orderId }, first.key), 'permission_denied');
    expectGraphqlError(await graphqlTyped(gateway, ApprovePayoutDocument, { orderId: toApprove.orderId }, analystToken), 'operator_forbidden');
    expectGraphqlError(await graphqlTyped(gateway, RejectPayoutDocument, { orderId: toApprove.orderId, reason: 'no' }, analystToken), 'operator_forbidden');

    const approved = (await graphqlDataTyped(gateway, ApprovePayoutDocument, { orderId: toApprove.orderId })).approvePayout;
    expect(approved).toMatchObject({
      orderId: toApprove.orderId,
      status: 'completed',
      awaitingReview: false,
      paidAt: expect.any(String),
      sentAt: expect.any(String),
    });
    const failed = (await graphqlDataTyped(gateway, ApprovePayoutDocument, { orderId: toFail.orderId })).approvePayout;
    expect(failed).toMatchObject({ status: 'failed', paidAt: null, failureReason: expect.any(String) });
    const rejected = (await graphqlDataTyped(gateway, RejectPayoutDocument, { orderId: toReject.orderId, reason: 'Unknown recipient' })).rejectPayout;
    expect(rejected).toMatchObject({ status: 'cancelled', awaitingReview: false, failureReason: 'Unknown recipient', sentAt: null });

    // Decided once; unknown ids are not found.
    expectGraphqlError(
      await graphqlTyped(gateway, ApprovePayoutDocument, { orderId: toApprove.orderId }, gateway.adminToken),
      'payout_not_awaiting_review',
      'completed',
    );
    expectGraphqlError(
      await graphqlTyped(gateway, RejectPayoutDocument, { orderId: toReject.orderId }, gateway.adminToken),
      'payout_not_awaiting_review',
      'cancelled',
    );
    expectGraphqlError(await graphqlTyped(gateway, ApprovePayoutDocument, { orderId: randomUUID() }, gateway.adminToken), 'payout_not_found');
    expectGraphqlError(await graphqlTyped(gateway, RejectPayoutDocument, { orderId: 'nope' }, gateway.adminToken), 'payout_not_found');

    expect(await mainBalance(gateway, first.organization.id)).toBe(6_000_000n - LARGE_DEBIT);
    expect(await mainBalance(gateway, second.organization.id)).toBe(3_000_000n);
    expect(
      (await graphqlDataTyped(gateway, PendingPayoutsDocument, { organizationId: first.organization.id }, analystToken)).pendingPayouts.pagination.totalCount,
    ).toBe(0);
    // The merchant sees the decisions.
    expect((await graphqlDataTyped(gateway, PayoutDocument, { orderId: toReject.orderId }, second.key)).payout.status).toBe('cancelled');
    await expectBalancedLedger(gateway.db.prisma);
  });
});
