/**
 * Issue 30 over real HTTP and PostgreSQL: the search finds a payment by its customer's phone in
 * any common writing (REST v2 `search`, the same filter GraphQL and the dashboard use), a payout
 * by its recipient's phone and by the provider's reference; the home's paid volume leaves refunded
 * payments out; capabilities say why payouts are off; both are dashboard users' reads only.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { payTransaction } from '../../../src/domain/operations.js';
import { signedIn, type DashboardBrowser } from '../../support/dashboard.js';
import { transactionBody, useGateway } from '../../support/gateway.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';

const gateway = useGateway();
const state = {} as { checkoutKey: string; payoutKey: string; owner: DashboardBrowser; awa: string; moussa: string; refunded: string; payout: string };

async function paid(phone: string, amount: number): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key: state.checkoutKey,
    body: transactionBody({ products: [{ name: 'Ndambé', price: amount, quantity: 1 }], customer: { first_name: 'C', last_name: 'D', phone } }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await payTransaction(gateway.ctx, { kind: 'customer' }, created.body.order_id, { method: 'wave', phone })).outcome).toBe('paid');
  return created.body.order_id;
}

const HOME = '{ merchantHome { today { count amount fees } thisMonth { count amount } payoutsAwaitingReview capabilities { capability usable blockedBy } } }';

beforeAll(async () => {
  const merchant = await fundedMerchant(gateway, { balance: 5_000_000 });
  state.payoutKey = merchant.key;
  state.checkoutKey = await gateway.createKey(merchant.organization.id, 'checkout');
  state.awa = await paid('+221771234567', 10_000);
  state.moussa = await paid('+221781112233', 3_000);
  state.refunded = await paid('+2250701020304', 50_000);
  expect((await gateway.rest('GET', `/api/v2/refund/${state.refunded}`, { key: state.checkoutKey })).status).toBe(200);
  const payout = await postPayout(gateway, state.payoutKey, payoutBody({ amount: 1_000, recipient: { first_name: 'Aminata', phone: '+221 76 555 44 33' } }));
  expect(payout.status, JSON.stringify(payout.body)).toBe(200);
  state.payout = payout.body.order_id;
  state.owner = await signedIn(gateway, merchant.organization.id, 'owner');
  // Another organisation's customer with the same number never shows.
  const other = await gateway.merchant({ scope: 'checkout' });
  await gateway.rest('POST', '/api/v2/transactions', { key: other.key, body: transactionBody({ customer: { phone: '+221771234567' } }) });
});

const foundTransactions = async (search: string): Promise<string[]> => {
  const answer = await gateway.rest('GET', `/api/v2/transactions?search=${encodeURIComponent(search)}`, { key: state.checkoutKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.transactions.map((transaction: { order_id: string }) => transaction.order_id);
};

describe('search by phone, any writing', () => {
  it('finds the customer’s payment however the number is written, and only it', async () => {
    for (const writing of ['+221 77 123 45 67', '221771234567', '771234567', '77 123 45 67', '00221771234567', '77.123.45.67'])
      expect(await foundTransactions(writing), writing).toEqual([state.awa]);
    // Côte d'Ivoire's ten-digit numbers, without their country code.
    expect(await foundTransactions('07 01 02 03 04')).toEqual([state.refunded]);
    expect(await foundTransactions('77 999 99 99')).toEqual([]);
  });

  it('finds a payout by its recipient’s phone in another writing, and by the provider’s reference', async () => {
    const payouts = async (search: string) =>
      (await gateway.rest('GET', `/api/v2/payouts?search=${encodeURIComponent(search)}`, { key: state.payoutKey })).body.payouts.map(
        (payout: { order_id: string }) => payout.order_id,
      );
    expect(await payouts('765554433')).toEqual([state.payout]);
    expect(await payouts('+221 76 555 44 33')).toEqual([state.payout]);
    const { providerReference } = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: state.payout } });
    expect(providerReference).not.toBe('');
    expect(await payouts(providerReference)).toEqual([state.payout]);
    expect(await payouts('')).toHaveLength(1);
  });

  it('finds a payment by its provider’s reference (exact)', async () => {
    const attempt = await gateway.ctx.db.paymentAttempt.findFirstOrThrow({ where: { transactionId: state.moussa } });
    expect(await foundTransactions(attempt.providerReference)).toEqual([state.moussa]);
  });
});

describe('the home page’s facts', () => {
  it('counts today’s and this month’s paid volume without the refunded payment', async () => {
    const { merchantHome } = await state.owner.data(HOME);
    expect(merchantHome.today).toMatchObject({ count: 2, amount: 13_000 });
    expect(merchantHome.thisMonth).toMatchObject({ count: 2, amount: 13_000 });
    expect(merchantHome.capabilities.every((capability: { usable: boolean }) => capability.usable)).toBe(true);
  });

  it('lists what needs attention: events that failed for good, retrying deliveries, payouts awaiting review, late payments', async () => {
    const { organizationId } = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: state.payout } });
    const db = gateway.ctx.db;
    const review = await postPayout(gateway, state.payoutKey, payoutBody({ amount: 2_500_000, recipient: { phone: '+221770000003' } }));
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    const webhook = await db.webhook.create({ data: { organizationId, url: 'https://hooks.example.sn/in', encryptedSecret: 'unused: nothing is sent' } });
    const delivery = (status: 'dropped' | 'pending' | 'delivered', eventId: string, attemptCount: number) =>
      db.webhookDelivery.create({ data: { webhookId: webhook.id, event: 'payment_status', eventId, body: '{}', status, attemptCount } });
    const [failedForGood, resentSince, retrying] = [randomUUID(), randomUUID(), randomUUID()];
    await delivery('dropped', failedForGood, 4);
    // An event dropped once but delivered by a later resend needs nothing more.
    await delivery('dropped', resentSince, 4);
    await delivery('delivered', resentSince, 1);
    await delivery('pending', retrying, 1);
    await db.latePayment.create({
      data: { attemptId: randomUUID(), transactionId: state.moussa, organizationId, method: 'wave', amount: 3_000n, outcome: 'returned' },
    });
    const { merchantHome } = await state.owner.data(
      '{ merchantHome { failedDeliveries retryingDeliveries payoutsAwaitingReview latePayments { transactionId amount outcome } } }',
    );
    expect(merchantHome).toEqual({
      failedDeliveries: 1,
      retryingDeliveries: 1,
      payoutsAwaitingReview: 1,
      latePayments: [{ transactionId: state.moussa, amount: 3_000, outcome: 'returned' }],
    });
  });

  it('says payouts are off and why once the organisation’s payouts are disabled; API keys and operators cannot read it', async () => {
    const organizationId = (await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: state.payout } })).organizationId;
    await gateway.ctx.db.organization.update({ where: { id: organizationId }, data: { payoutEnabled: false } });
    const { capabilities } = await state.owner.data('{ capabilities { capability usable blockedBy } }');
    expect(capabilities).toContainEqual({ capability: 'payouts', usable: false, blockedBy: 'not_enabled' });
    const byKey = await gateway.rest('POST', '/graphql', { key: state.checkoutKey, body: { query: HOME } });
    expect(byKey.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
