/**
 * The operator CLI's money commands end to end (the CLI's `main`, in process):
 * `sandbox pay`, `escrow release` and `account adjust` print ONE JSON object (the transaction,
 * the transaction, the account) and exit 0, or print {"error"} and exit 1; effects are checked on
 * REST. Each spawn costs ~0.5 s, so independent commands run together.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { transactionBody, useGateway } from '../support/gateway.js';

const gateway = useGateway();

const cli = async (args: string[]) => {
  const { code, json } = await runCli(gateway, args);
  return { code, json };
};

async function pendingOrder(key: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({ products: [{ name: 'Café Touba', price: 10_000, quantity: 1 }], ...overrides }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.order_id;
}

const mainBalance = async (key: string) => (await gateway.rest('GET', '/api/v2/accounts', { key })).body[0].balance;

describe('gateway sandbox pay / escrow release / account adjust', () => {
  it('sandbox pay prints the paid transaction; a declined or unconfirmed wallet, or a bad method, prints {"error"} and exits 1', async () => {
    const { key } = await gateway.merchant({ scope: 'readAndWrite' });
    const [paidOrder, declinedOrder, unconfirmedOrder] = await Promise.all([pendingOrder(key), pendingOrder(key), pendingOrder(key)]);

    const [paid, declined, unconfirmed, badMethod, noId] = await Promise.all([
      cli(['sandbox', 'pay', paidOrder, '--method', 'orange_money', '--phone', '+221770000001']),
      cli(['sandbox', 'pay', declinedOrder, '--method', 'wave', '--phone', '+221770000000']),
      cli(['sandbox', 'pay', unconfirmedOrder, '--phone', '+221770001111']),
      cli(['sandbox', 'pay', paidOrder, '--method', 'bank']),
      cli(['sandbox', 'pay']),
    ]);

    expect(paid.code).toBe(0);
    expect(paid.json).toMatchObject({
      orderId: paidOrder,
      status: 'paid',
      selectedPaymentMethod: 'orange_money',
      fees: 150,
      amount: 10_000,
      paidAt: expect.any(String),
    });
    expect(await mainBalance(key)).toBe(9_850);

    expect(declined).toEqual({ code: 1, json: { error: expect.stringMatching(/declined by wave/) } });
    expect(unconfirmed).toEqual({ code: 1, json: { error: expect.stringMatching(/not confirmed/) } });
    expect(badMethod).toEqual({
      code: 1,
      json: { error: expect.stringMatching(/^--method must be one of wave, orange_money \(got 'bank'\) \(usage: gateway sandbox pay /) },
    });
    expect(noId).toEqual({ code: 1, json: { error: 'missing ORDER_ID (usage: gateway sandbox pay ORDER_ID [--method wave|orange_money] [--phone P])' } });
    for (const orderId of [declinedOrder, unconfirmedOrder]) {
      expect((await gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key })).body.transaction_status).toBe('pending');
    }

    // Paying it again is the gateway's refusal, passed on.
    expect(await cli(['sandbox', 'pay', paidOrder])).toEqual({ code: 1, json: { error: 'This transaction cannot be paid: it is paid' } });
  });

  it('escrow release prints the released transaction; releasing again prints {"error"}', async () => {
    const { key } = await gateway.merchant({ scope: 'readAndWrite', escrowEnabled: true, verified: true });
    const orderId = await pendingOrder(key, { is_escrow: true });
    const held = await cli(['sandbox', 'pay', orderId, '--method', 'wave']);
    expect(held).toMatchObject({ code: 0, json: { orderId, status: 'paid_and_blocked', isEscrow: true } });
    expect(await mainBalance(key)).toBe(0);

    const released = await cli(['escrow', 'release', orderId]);
    expect(released).toMatchObject({ code: 0, json: { orderId, status: 'paid', fees: 100 } });
    expect(await mainBalance(key)).toBe(9_900);

    expect(await cli(['escrow', 'release', orderId])).toEqual({ code: 1, json: { error: 'This transaction is not held in escrow' } });
  });

  it('account adjust takes a signed amount (also `--amount -500`) and prints the account; below zero prints {"error"}', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'read' });
    const credited = await cli(['account', 'adjust', '--org', organization.id, '--amount', '1000', '--reason', 'goodwill, ticket 7']);
    expect(credited.code).toBe(0);
    expect(credited.json).toEqual({
      id: expect.any(String),
      organizationId: organization.id,
      name: 'main',
      type: 'operating',
      balance: 1_000,
      currency: 'XOF',
      isActive: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const [debited, tooMuch, zero, notNumber, noReason] = await Promise.all([
      cli(['account', 'adjust', '--org', organization.id, '--amount', '-500', '--reason', 'correction']),
      cli(['account', 'adjust', '--org', organization.id, '--amount=-5000', '--reason', 'too much']),
      cli(['account', 'adjust', '--org', organization.id, '--amount', '0', '--reason', 'nothing']),
      cli(['account', 'adjust', '--org', organization.id, '--amount', '12.5', '--reason', 'half']),
      cli(['account', 'adjust', '--org', organization.id, '--amount', '10']),
    ]);
    expect(debited).toMatchObject({ code: 0, json: { id: credited.json.id, balance: 500 } });
    expect(tooMuch).toEqual({ code: 1, json: { error: 'Insufficient balance' } });
    expect(zero).toEqual({ code: 1, json: { error: expect.stringMatching(/^Invalid input: amount must be a non-zero whole number/) } });
    expect(notNumber).toEqual({
      code: 1,
      json: { error: expect.stringMatching(/^--amount must be a whole number of XOF, negative to debit \(got '12\.5'\)/) },
    });
    expect(noReason).toEqual({ code: 1, json: { error: '--reason is required (usage: gateway account adjust --org ID --amount N --reason R)' } });
    expect(await mainBalance(key)).toBe(500);
  });
});
