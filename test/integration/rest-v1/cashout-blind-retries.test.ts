/**
 * The public NabooPay v1 SDKs retry failed calls, POSTs included, and never send an
 * Idempotency-Key: Node `naboopay` 2.0.0 three more times through async-retry (1 s, 2 s, 4 s
 * base waits, randomised up to twice that), Python `naboopay` 1.0.2 twice more through tenacity
 * (random waits under 2 s). These tests replay the base 1 s, 2 s, 4 s schedule against
 * the v1 cashout routes, with a failing wallet, a wallet slower than the client's patience, and
 * across a 5-minute bucket boundary, and count the payouts the gateway recorded (each Payout row is
 * one payout sent to the provider) and what left the main account.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, useGateway, type HttpResult, type TestGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { REPEAT_REFUSED_MS, SDK_RETRY_WINDOW_MS } from '../../../src/domain/blindRetries.js';
import { systemClock } from '../../../src/domain/context.js';
import { adjustAccount } from '../../../src/domain/operations.js';
import { PHONES, feeOf, fundedMerchant, mainBalance, postPayout } from '../../support/payouts.js';

const gateway = useGateway();

/** The waits between the SDKs' four attempts. */
const SDK_RETRY_DELAYS_MS = [1_000, 2_000, 4_000];
/** What the Node SDK (axios) sends with a JSON body. */
const NODE_SDK_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/plain, */*', 'user-agent': 'axios/1.7.2' };

interface Attempt {
  at: number;
  status: number | 'gave up';
  body?: unknown;
  replayed?: string | null;
}

/**
 * One SDK call: the first attempt, then a retry after each failure (a non-2xx answer, or no answer
 * within `patienceMs`), 1 s, 2 s, 4 s apart; stops at the first 2xx. Returns every attempt.
 */
async function callLikeTheSdk(send: (signal: AbortSignal) => Promise<HttpResult>, patienceMs = 60_000): Promise<Attempt[]> {
  const started = Date.now();
  const attempts: Attempt[] = [];
  for (let attempt = 0; attempt <= SDK_RETRY_DELAYS_MS.length; attempt += 1) {
    const at = Date.now() - started;
    try {
      const response = await send(AbortSignal.timeout(patienceMs));
      attempts.push({ at, status: response.status, body: response.body, replayed: response.headers.get('idempotent-replayed') });
      if (response.status >= 200 && response.status < 300) return attempts;
    } catch {
      attempts.push({ at, status: 'gave up' });
    }
    if (attempt < SDK_RETRY_DELAYS_MS.length) await new Promise((resolve) => setTimeout(resolve, SDK_RETRY_DELAYS_MS[attempt]));
  }
  return attempts;
}

/** A cashout exactly as the SDKs send it (their body's field order), through the fetch of the test. */
function cashout(target: TestGateway, key: string, route: 'wave' | 'orange-money', body: { full_name: string; amount: number; phone_number: string }) {
  return async (signal: AbortSignal): Promise<HttpResult> => {
    const response = await fetch(`${target.url}/api/v1/cashout/${route}`, {
      method: 'POST',
      headers: { ...NODE_SDK_HEADERS, authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
}

const payoutsOf = (target: TestGateway, organizationId: string) =>
  target.ctx.db.payout.findMany({ where: { organizationId }, orderBy: { createdAt: 'asc' }, select: { status: true, amount: true, recipientPhone: true } });

describe("v1 cashout under the SDKs' blind retries (3 more tries, 1 s / 2 s / 4 s, no Idempotency-Key)", () => {
  afterEach(() => {
    gateway.ctx.clock = systemClock;
  });

  it('across a 5-minute bucket boundary: a retry 1 s later, in the next bucket, still replays the first payout', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 50_000 });
    const boundary = (Math.floor(Date.now() / REPEAT_REFUSED_MS) + 1) * REPEAT_REFUSED_MS;
    const send = cashout(gateway, key, 'orange-money', { full_name: 'Moussa Ndiaye', amount: 10_000, phone_number: PHONES.succeeds });

    gateway.ctx.clock = { now: () => new Date(boundary - 300) };
    const first = await send(AbortSignal.timeout(10_000));
    gateway.ctx.clock = { now: () => new Date(boundary + 700) };
    const retry = await send(AbortSignal.timeout(10_000));

    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(first.body).toEqual({ phone_number: PHONES.succeeds, amount: 10_000, full_name: 'Moussa Ndiaye', status: 'done' });
    expect(await payoutsOf(gateway, organization.id)).toHaveLength(1);
    expect(await mainBalance(gateway, organization.id)).toBe(50_000n - 10_000n - BigInt(feeOf(10_000)));
  });

  it('an identical cashout after the retry window is a 409 with a Detail that says nothing was sent, until 5 minutes after the first; another amount or phone at once goes out', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 100_000 });
    const start = Date.now();
    const body: { full_name: string; amount: number; phone_number: string } = { full_name: 'Awa Diop', amount: 10_000, phone_number: PHONES.succeeds };
    const send = (overrides: Partial<typeof body> = {}) => cashout(gateway, key, 'wave', { ...body, ...overrides })(AbortSignal.timeout(10_000));
    const at = (ms: number) => {
      gateway.ctx.clock = { now: () => new Date(start + ms) };
    };

    at(0);
    const first = await send();
    expect(first.status).toBe(200);
    // A millisecond apart: payouts take their creation time from the gateway's clock, so the list below has an order.
    at(1);
    expect((await send({ amount: 12_000 })).status).toBe(200);
    at(2);
    expect((await send({ phone_number: '+221770000002' })).status).toBe(200);
    // The last retry the SDKs can make still replays the first answer (the first was answered at 0).
    at(SDK_RETRY_WINDOW_MS - 1);
    const lastRetry = await send();
    expect(lastRetry.headers.get('idempotent-replayed')).toBe('true');
    expect(lastRetry.body).toEqual(first.body);
    // After it: a deliberate repeat, refused, and the answer says so (never a replayed "done").
    for (const later of [SDK_RETRY_WINDOW_MS, 20_000, REPEAT_REFUSED_MS - 1]) {
      at(later);
      const repeat = await send();
      expect(repeat.status, `${later} ms after the first`).toBe(409);
      expect(repeat.headers.get('idempotent-replayed')).toBeNull();
      const firstAt = new Date(start).toISOString().slice(11, 19);
      const allowedAt = new Date(start + REPEAT_REFUSED_MS).toISOString().slice(11, 19);
      expect(repeat.body).toEqual({
        Detail:
          `Not sent: an identical cashout (same wallet, phone number, amount and name) was received at ${firstAt} UTC, less than 5 minutes ago, ` +
          'and two payouts to one phone number within 5 minutes are refused. Its outcome is in your payouts. ' +
          `To send a second one, send it again from ${allowedAt} UTC, or now with an Idempotency-Key of its own.`,
      });
    }
    at(REPEAT_REFUSED_MS);
    const secondPayout = await send();
    expect(secondPayout.status).toBe(200);
    expect(secondPayout.headers.get('idempotent-replayed')).toBeNull();
    // The second payout has its own retry window.
    at(REPEAT_REFUSED_MS + 1_000);
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
    expect((await payoutsOf(gateway, organization.id)).map((payout) => [payout.amount, payout.recipientPhone])).toEqual([
      [10_000n, PHONES.succeeds],
      [12_000n, PHONES.succeeds],
      [10_000n, '+221770000002'],
      [10_000n, PHONES.succeeds],
    ]);
    expect(await mainBalance(gateway, organization.id)).toBe(
      100_000n - [10_000, 12_000, 10_000, 10_000].reduce((sum, amount) => sum + BigInt(amount + feeOf(amount)), 0n),
    );
    await expectBalancedLedger(gateway.ctx.db);
  });

  it('leaves v2 as it was: two identical POST /payouts without a key are two payouts', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 50_000 });
    expect((await postPayout(gateway, key)).status).toBe(200);
    expect((await postPayout(gateway, key)).status).toBe(200);
    expect(await payoutsOf(gateway, organization.id)).toHaveLength(2);
  });

  it("a merchant's own Idempotency-Key is used as given (no 5-minute rule on top of it)", async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 50_000 });
    const body = { full_name: 'Awa Diop', amount: 10_000, phone_number: PHONES.succeeds };
    const withKey = (idempotencyKey: string) => gateway.rest('POST', '/api/v1/cashout/wave', { key, body, headers: { 'idempotency-key': idempotencyKey } });
    expect((await withKey('order-1')).status).toBe(200);
    expect((await withKey('order-2')).status).toBe(200);
    expect((await withKey('order-1')).headers.get('idempotent-replayed')).toBe('true');
    expect(await payoutsOf(gateway, organization.id)).toHaveLength(2);
  });

  it('a refusal before money moved (insufficient balance) is not replayed: after a top-up the same cashout is sent, once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 1_000 });
    const body = { full_name: 'Moussa Sow', amount: 5_000, phone_number: '+221770000001' };
    const refused = await cashout(gateway, key, 'wave', body)(AbortSignal.timeout(10_000));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ Detail: 'Insufficient balance' });
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 10_000, reason: 'top-up' });
    const sent = await cashout(gateway, key, 'wave', body)(AbortSignal.timeout(10_000));
    expect(sent.status).toBe(200);
    expect(sent.headers.get('idempotent-replayed')).toBeNull();
    // The retry after that replays the payout: still one sent.
    const retried = await cashout(gateway, key, 'wave', body)(AbortSignal.timeout(10_000));
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await payoutsOf(gateway, organization.id)).toHaveLength(1);
  });

  it('the same phone spelled otherwise is another request (another payout), never a 422 about a key the client did not send', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const first = await cashout(gateway, key, 'wave', { full_name: 'Awa Diop', amount: 2_000, phone_number: '+221 77 000 00 01' })(AbortSignal.timeout(10_000));
    const second = await cashout(gateway, key, 'wave', { full_name: 'Awa Diop', amount: 2_000, phone_number: '+221770000001' })(AbortSignal.timeout(10_000));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await payoutsOf(gateway, organization.id)).toHaveLength(2);
  });
});

/**
 * The timeline these two tests rely on: attempt 1 gives up at PATIENCE; attempt 2 goes 1 s later,
 * while the wallet still holds the first call (WALLET_LATENCY), and has until 0.2 s before the
 * wallet answers to be told 409; attempt 3 goes 2 s after that, about 1 s after the wallet
 * answered. The patience was 0.5 s (latency 2.5 s) until a loaded day's 409 took longer than that.
 */
const CLIENT_PATIENCE_MS = 800;
const WALLET_LATENCY_MS = 2_800;

/**
 * One SDK call of 10,000 XOF to `phone` from a merchant holding 50,000, on a gateway of its own
 * whose wallet answers after WALLET_LATENCY_MS, by a client that gives up after CLIENT_PATIENCE_MS;
 * `check` reads the attempts and the gateway before it closes.
 */
async function onSlowWallet(
  route: 'wave' | 'orange-money',
  phone: string,
  check: (slow: TestGateway, organizationId: string, attempts: Attempt[]) => Promise<void>,
): Promise<void> {
  const slow = await startGateway({ sandboxLatencyMs: WALLET_LATENCY_MS });
  try {
    const { organization, key } = await fundedMerchant(slow, { balance: 50_000 });
    const attempts = await callLikeTheSdk(cashout(slow, key, route, { full_name: 'Awa Diop', amount: 10_000, phone_number: phone }), CLIENT_PATIENCE_MS);
    await check(slow, organization.id, attempts);
  } finally {
    await slow.close();
  }
}

// Three tests follow the SDKs' whole schedule, 7-8 s of sleeps each: they run at the same time (on
// the file's gateway, whose clock no other test touches meanwhile, and on slow gateways of their
// own), so the file holds its worker ~10 s instead of ~20.
describe("v1 cashout through the SDKs' whole retry schedule", () => {
  it.concurrent('a wallet that refuses: four attempts, one payout sent; every retry replays the first 500, funds returned once', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 50_000 });
    const attempts = await callLikeTheSdk(cashout(gateway, key, 'wave', { full_name: 'Awa Diop', amount: 10_000, phone_number: PHONES.fails }));

    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500, 500]);
    // The retries really followed the schedule (about 0, 1, 3 and 7 s).
    expect(attempts[3]!.at).toBeGreaterThanOrEqual(7_000);
    expect(attempts.map((attempt) => attempt.replayed)).toEqual([null, 'true', 'true', 'true']);
    expect(new Set(attempts.map((attempt) => JSON.stringify(attempt.body))).size).toBe(1);
    expect((attempts[0]!.body as { Detail: string }).Detail).toMatch(/^Failed to withdraw/);
    expect(await payoutsOf(gateway, organization.id)).toEqual([{ status: 'failed', amount: 10_000n, recipientPhone: PHONES.fails }]);
    expect(await mainBalance(gateway, organization.id)).toBe(50_000n);
    await expectBalancedLedger(gateway.ctx.db);
  }, 20_000);

  it.concurrent('the client gives up after 0.8 s, retries on the SDK schedule while the first is still sending: one payout, the retry gets its answer', async () => {
    await onSlowWallet('wave', PHONES.succeeds, async (slow, organizationId, attempts) => {
      // Attempt 1 abandoned mid-call; attempt 2 (t ~ 1.8 s) finds it still running: 409; attempt 3
      // (t ~ 3.9 s) gets the first one's answer, replayed.
      expect(attempts.map((attempt) => attempt.status)).toEqual(['gave up', 409, 200]);
      expect((attempts[1]!.body as { Detail: string }).Detail).toMatch(/^An identical cashout .* is still being processed/);
      expect(attempts[2]).toMatchObject({ replayed: 'true', body: { phone_number: PHONES.succeeds, amount: 10_000, full_name: 'Awa Diop', status: 'done' } });
      expect(await payoutsOf(slow, organizationId)).toEqual([{ status: 'completed', amount: 10_000n, recipientPhone: PHONES.succeeds }]);
      expect(await mainBalance(slow, organizationId)).toBe(50_000n - 10_000n - BigInt(feeOf(10_000)));
      await expectBalancedLedger(slow.ctx.db);
    });
  }, 30_000);

  it.concurrent('a failing wallet, slow too: every attempt of the schedule, one payout attempt, funds returned', async () => {
    await onSlowWallet('orange-money', PHONES.fails, async (slow, organizationId, attempts) => {
      expect(attempts.map((attempt) => attempt.status)).toEqual(['gave up', 409, 500, 500]);
      expect(attempts.slice(2).map((attempt) => attempt.replayed)).toEqual(['true', 'true']);
      expect(await payoutsOf(slow, organizationId)).toEqual([{ status: 'failed', amount: 10_000n, recipientPhone: PHONES.fails }]);
      expect(await mainBalance(slow, organizationId)).toBe(50_000n);
    });
  }, 30_000);
});
