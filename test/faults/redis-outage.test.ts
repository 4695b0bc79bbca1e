/**
 * Redis killed (kill -9), frozen (SIGSTOP) and flushed (FLUSHALL) under load (issue 16), on two
 * instances sharing PostgreSQL and a redis-server of the test's own. The load: clients sending
 * payouts for one organisation as fast as they are answered, and a loop of payments and refunds.
 *
 * "One payout per organisation at a time" is PostgreSQL's decision: while Redis is down or frozen
 * the deployment still sends payouts one at a time (never two at the provider at once) and answers
 * 409 to the second; after Redis returns it answers again without anyone repairing it, webhook
 * events sent meanwhile all arrive, and the money invariants hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { sleep, statusCounts, useCluster, type Answer, type Instance } from '../support/faults/cluster.js';
import { expectAnswersAgain, expectEveryWebhookDelivered, expectMoneyInvariants, overlappingPayouts } from '../support/faults/invariants.js';
import { createTransaction, faultMerchant, pay, payoutPressure, postPayout, refund, type FaultMerchant, type PayoutTry } from '../support/faults/money.js';

const LATENCY_MS = 100;
/** Each fault lasts this long. */
const OUTAGE_MS = 4_000;

const cluster = useCluster({
  ownRedis: true,
  env: {
    SANDBOX_LATENCY_MS: String(LATENCY_MS),
    // The load pays through GraphQL's sandboxPay and the first fault starts 1.5 s in: GraphQL is
    // loaded before the listen, as by default. Loaded by the first pay instead (the suite's default,
    // test/support/processes.ts), it held both event loops for seconds of the "killed" window on a
    // slow CI machine, and no payout was both sent and answered inside it.
    GRAPHQL_PRELOAD: 'true',
  },
});
let a: Instance;
let b: Instance;
let receiver: WebhookReceiver;
let merchant: FaultMerchant;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
  merchant = await faultMerchant(cluster.gateway, { receiver, path: '/redis' });
}, 90_000);
afterAll(async () => {
  await receiver?.close();
});

interface Window {
  fault: string;
  from: number;
  to: number;
}

/** Payments and refunds in a loop on both instances until `stopped()`; every answer kept. */
async function paymentsAndRefunds(instances: Instance[], key: string, stopped: () => boolean): Promise<{ step: string; answer: Answer }[]> {
  const answers: { step: string; answer: Answer }[] = [];
  let turn = 0;
  const worker = async () => {
    while (!stopped()) {
      const [one, two] = turn++ % 2 === 0 ? [instances[0]!, instances[1]!] : [instances[1]!, instances[0]!];
      const created = await createTransaction(one, key, 1_000);
      answers.push({ step: 'create', answer: created });
      if (created.status !== 200) continue;
      const paid = await pay(two, created.body.order_id);
      answers.push({ step: 'pay', answer: paid });
      if (paid.body?.data?.sandboxPay?.outcome !== 'paid') continue;
      answers.push({ step: 'refund', answer: await refund(one, key, created.body.order_id) });
    }
  };
  await Promise.all([worker(), worker()]);
  return answers;
}

describe('Redis killed, frozen and flushed under load, on two instances', () => {
  it('payouts never overlap and the second gets 409 throughout; the service answers again without repair; webhooks all delivered; money exact', async () => {
    const redis = cluster.redis!;
    const origin = performance.now();
    const now = () => performance.now() - origin;
    let stop = false;
    const windows: Window[] = [];
    const load = Promise.all([
      payoutPressure([a, b], merchant.payoutKey, { workers: 4, durationMs: 60_000, amount: 1_000, until: () => stop, origin }),
      paymentsAndRefunds([a, b], merchant.checkoutKey, () => stop),
    ]);

    const fault = async (name: string, begin: () => Promise<void> | void, end: () => Promise<void> | void) => {
      await sleep(1_500);
      const from = now();
      await begin();
      await sleep(OUTAGE_MS);
      windows.push({ fault: name, from, to: now() });
      await end();
    };
    await fault(
      'killed',
      () => redis.kill(),
      () => redis.restart(),
    );
    await fault(
      'frozen',
      () => redis.freeze(),
      () => redis.thaw(),
    );
    await fault(
      'flushed',
      () => redis.flushAll(),
      () => undefined,
    );
    await sleep(1_500);
    stop = true;
    const [payouts, money] = await load;

    const payoutCounts = statusCounts(payouts);
    const moneyCounts = Object.fromEntries(
      ['create', 'pay', 'refund'].map((step) => [step, statusCounts(money.filter((entry) => entry.step === step).map((entry) => entry.answer))]),
    );
    console.info(`redis outage: payouts ${JSON.stringify(payoutCounts)}; ${JSON.stringify(moneyCounts)}`);

    // Never two payouts of the organisation at the provider at once, Redis or not.
    const db = cluster.gateway.ctx.db;
    expect(await overlappingPayouts(db, merchant.organizationId, LATENCY_MS)).toEqual([]);
    const unexpected = payouts.filter((attempt) => !(attempt.status === 409 || (attempt.status === 200 && attempt.body.payout_status === 'completed')));
    expect(
      unexpected.map(({ instance, status, body, at }) => ({ instance, status, body, at: Math.round(at) })),
      'payout answers other than completed or 409',
    ).toEqual([]);

    // While Redis was down and while it was frozen, payouts were still sent, one at a time: the
    // second concurrent one got 409 (answered during the fault, not after it).
    const during = (window: Window, status: number) =>
      payouts.filter((attempt: PayoutTry) => attempt.at >= window.from && attempt.doneAt <= window.to && attempt.status === status).length;
    // On failure: the payouts sent (200) around the window, each as "instance sent-answered ms".
    const sentAround = (window: Window) =>
      payouts
        .filter((attempt) => attempt.status === 200 && attempt.doneAt >= window.from - 1_000 && attempt.at <= window.to + 1_000)
        .map(({ instance, at, doneAt }) => `${instance} ${Math.round(at)}-${Math.round(doneAt)}`);
    for (const window of windows.filter((w) => w.fault !== 'flushed')) {
      expect(
        { fault: window.fault, completed: during(window, 200) > 0, refused: during(window, 409) > 0 },
        `window ${Math.round(window.from)}-${Math.round(window.to)} ms; payouts sent around it: ${sentAround(window).join(', ')}`,
      ).toEqual({
        fault: window.fault,
        completed: true,
        refused: true,
      });
    }

    // Payments and refunds: answered (no 500, no hang), whatever Redis did.
    const failed = money.filter((entry) => entry.answer.status >= 500 || entry.answer.status === 0 || (entry.step === 'pay' && entry.answer.body?.errors));
    expect(
      failed.map(({ step, answer }) => ({ step, status: answer.status, body: answer.body })),
      'payments or refunds not answered',
    ).toEqual([]);
    expect(money.filter((entry) => entry.step === 'refund' && entry.answer.status === 200).length).toBeGreaterThan(0);

    // Redis is back: both instances answer, and send payouts, without a restart.
    for (const instance of [a, b]) {
      await expectAnswersAgain(instance, merchant.checkoutKey);
      const payout = await postPayout(instance, merchant.payoutKey, 1_000);
      expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    }
    const { open } = await expectMoneyInvariants(db);
    expect(open).toEqual([]);
    await expectEveryWebhookDelivered(db, receiver, 45_000);
  }, 150_000);
});
