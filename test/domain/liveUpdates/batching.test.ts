/**
 * Live updates leave in batches: the changes announced in one event-loop turn share one message
 * on the bus (at most MAX_EVENTS_PER_MESSAGE each), and a subscriber still receives every one of
 * them, in order. What arrives on the bus that is not ours (not an array, too long, a malformed
 * entry) is dropped without losing the valid entries beside it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_EVENTS_PER_MESSAGE, MAX_MESSAGE_LENGTH, announceStatusChange } from '../../../src/domain/liveUpdates/events.js';
import { transactionStatusChanged } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

const watching = (organizationId: string) => ({ operation: 'transactionStatusChanged' as const, organizationId, caller: gateway.operator });
const wireEvent = (organizationId: string, id = randomUUID()) => ({ k: 'transaction', o: organizationId, i: id, s: 'paid', t: Date.now() });

/** The next `count` changes of `stream`, failing after two seconds rather than hanging. */
async function read(stream: AsyncIterator<{ orderId: string }>, count: number): Promise<string[]> {
  const ids: string[] = [];
  const deadline = setTimeout(() => void stream.return?.(), 2_000);
  while (ids.length < count) {
    const { value, done } = await stream.next();
    if (done) break;
    ids.push(value.orderId);
  }
  clearTimeout(deadline);
  return ids;
}

afterEach(() => vi.restoreAllMocks());

describe('live updates in batches', () => {
  it(`sends the changes of one turn as ceil(n / ${MAX_EVENTS_PER_MESSAGE}) messages, and the subscriber gets every change in order`, async () => {
    const organizationId = randomUUID();
    const stream = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    const publish = vi.spyOn(gateway.ctx.coordination.liveEvents, 'publish');
    const changes = Array.from({ length: MAX_EVENTS_PER_MESSAGE + 50 }, () => ({ id: randomUUID(), organizationId, status: 'paid' }));
    for (const change of changes) announceStatusChange(gateway.ctx, gateway.ctx.db, 'transaction', change);
    // Stream reading is bounded by MAX_QUEUED_EVENTS unread: read while they arrive.
    expect(await read(stream, changes.length)).toEqual(changes.map((change) => change.id));
    expect(publish).toHaveBeenCalledTimes(2);
    expect(publish.mock.calls.every(([message]) => message.length <= MAX_MESSAGE_LENGTH)).toBe(true);
    await stream.return!();
  });

  it('sends a change announced alone in its turn without waiting for company', async () => {
    const organizationId = randomUUID();
    const stream = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    const publish = vi.spyOn(gateway.ctx.coordination.liveEvents, 'publish');
    const change = { id: randomUUID(), organizationId, status: 'paid' };
    announceStatusChange(gateway.ctx, gateway.ctx.db, 'transaction', change);
    expect(await read(stream, 1)).toEqual([change.id]);
    expect(publish).toHaveBeenCalledTimes(1);
    await stream.return!();
  });

  it('drops what is not ours on the bus and keeps the valid entries of a message', async () => {
    const organizationId = randomUUID();
    const stream = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    const bus = gateway.ctx.coordination.liveEvents;
    const dropped = wireEvent(organizationId);
    await bus.publish('not json');
    await bus.publish(JSON.stringify(dropped)); // an object, not an array
    await bus.publish(JSON.stringify([{ ...dropped, k: 'refund' }, { ...dropped, t: 'yesterday' }, null, 42]));
    await bus.publish(JSON.stringify([dropped, { pad: 'x'.repeat(MAX_MESSAGE_LENGTH) }])); // too long as a whole
    const kept = wireEvent(organizationId);
    await bus.publish(JSON.stringify([{ ...dropped, s: 7 }, kept]));
    expect(await read(stream, 1)).toEqual([kept.i]);
    await stream.return!();
  });
});
