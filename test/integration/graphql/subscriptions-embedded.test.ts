/**
 * Live updates without Redis (the embedded default: PGlite, in-process coordination): the same
 * subscription over SSE hears a payment made on this instance within a second.
 */
import { expect, it } from 'vitest';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { useGateway } from '../../support/gateway.js';
import { TRANSACTION_STATUS_CHANGED, subscribe } from '../../support/sse.js';

const gateway = useGateway({ embedded: true });

it('tells a merchant of its transaction paid, in process, within a second', async () => {
  const { key } = await gateway.merchant();
  const orderId = await pendingTransaction(gateway, key);
  const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
  try {
    await sandboxPay(gateway, orderId);
    const answeredAt = Date.now();
    const event = await live.next(1_000);
    expect(event.payload.data.transactionStatusChanged).toMatchObject({ orderId, status: 'paid' });
    expect(event.receivedAt - answeredAt).toBeLessThan(1_000);
  } finally {
    live.close();
  }
});
