/**
 * The live-update hub's bounds, in process (the embedded coordination): a reader that stalls is
 * disconnected after MAX_QUEUED_EVENTS rather than growing memory; past the per-organisation
 * limit a new subscription is refused (429); a stream nobody reads is closed after its grace; a
 * closed stream leaves nothing behind; a change
 * announced inside a transaction that rolls back is never told.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { inTransaction } from '../../../src/domain/afterCommit.js';
import { DomainError } from '../../../src/domain/errors.js';
import {
  MAX_QUEUED_EVENTS,
  MAX_SUBSCRIBERS_PER_ORGANIZATION,
  UNREAD_GRACE_MS,
  announceStatusChange,
  liveSubscriberCount,
} from '../../../src/domain/liveUpdates/events.js';
import { transactionStatusChanged } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

/** An operator's access to one organisation's transactions (no key to revoke). */
/** An operator (the bootstrap admin) watching one organisation. */
const watching = (organizationId: string) => ({ operation: 'transactionStatusChanged' as const, organizationId, caller: gateway.operator });
const paid = (organizationId: string) => ({ id: randomUUID(), organizationId, status: 'paid' });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('live updates in process', () => {
  it('tells a subscriber of a change announced on the primary, and not of another organisation’s', async () => {
    const organizationId = randomUUID();
    const stream = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    const change = paid(organizationId);
    announceStatusChange(gateway.ctx, gateway.ctx.db, 'transaction', paid(randomUUID()));
    announceStatusChange(gateway.ctx, gateway.ctx.db, 'transaction', change);
    const { value } = await stream.next();
    expect(value).toMatchObject({ orderId: change.id, organizationId, status: 'paid' });
    await stream.return!();
  });

  it('never tells of a change announced in a transaction that rolled back; tells it after one that committed', async () => {
    const organizationId = randomUUID();
    const stream = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    const rolledBack = paid(organizationId);
    await expect(
      inTransaction(gateway.ctx, async (tx) => {
        announceStatusChange(gateway.ctx, tx, 'transaction', rolledBack);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const committed = paid(organizationId);
    let toldBeforeCommit = false;
    const pending = stream.next().then((result) => {
      toldBeforeCommit = !committedYet;
      return result;
    });
    let committedYet = false;
    await inTransaction(gateway.ctx, async (tx) => {
      announceStatusChange(gateway.ctx, tx, 'transaction', committed);
      await settle();
      committedYet = true;
    });
    expect((await pending).value).toMatchObject({ orderId: committed.id });
    expect(toldBeforeCommit).toBe(false);
    await stream.return!();
  });

  it(`disconnects a reader that stalls past ${MAX_QUEUED_EVENTS} unread events (its stream completes)`, async () => {
    const organizationId = randomUUID();
    const stream = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    const before = liveSubscriberCount(gateway.ctx);
    for (let i = 0; i <= MAX_QUEUED_EVENTS; i += 1) announceStatusChange(gateway.ctx, gateway.ctx.db, 'transaction', paid(organizationId));
    await settle();
    expect(liveSubscriberCount(gateway.ctx)).toBe(before - 1);
    let read = 0;
    while (!(await stream.next()).done) read += 1;
    expect(read).toBe(MAX_QUEUED_EVENTS);
  });

  it(`refuses a subscription past ${MAX_SUBSCRIBERS_PER_ORGANIZATION} on one organisation (429), and frees the place when one closes`, async () => {
    const organizationId = randomUUID();
    const before = liveSubscriberCount(gateway.ctx);
    const streams = await Promise.all(
      Array.from({ length: MAX_SUBSCRIBERS_PER_ORGANIZATION }, () => transactionStatusChanged(gateway.ctx, watching(organizationId))),
    );
    const refused = await transactionStatusChanged(gateway.ctx, watching(organizationId)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).status).toBe(429);
    expect((refused as DomainError).code).toBe('too_many_subscriptions');
    // Another organisation is not concerned.
    const other = await transactionStatusChanged(gateway.ctx, watching(randomUUID()));
    await other.return!();
    await streams[0]!.return!();
    const again = await transactionStatusChanged(gateway.ctx, watching(organizationId));
    await Promise.all([again, ...streams].map((stream) => stream.return!()));
    expect(liveSubscriberCount(gateway.ctx)).toBe(before);
  });

  it(`closes a stream nobody starts reading within ${UNREAD_GRACE_MS} ms, and keeps one being read`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const before = liveSubscriberCount(gateway.ctx);
      const unread = await transactionStatusChanged(gateway.ctx, watching(randomUUID()));
      const read = await transactionStatusChanged(gateway.ctx, watching(randomUUID()));
      const reading = read.next();
      expect(liveSubscriberCount(gateway.ctx)).toBe(before + 2);
      vi.advanceTimersByTime(UNREAD_GRACE_MS);
      expect(liveSubscriberCount(gateway.ctx)).toBe(before + 1);
      expect(await unread.next()).toEqual({ value: undefined, done: true });
      await read.return!();
      expect(await reading).toEqual({ value: undefined, done: true });
      expect(liveSubscriberCount(gateway.ctx)).toBe(before);
    } finally {
      vi.useRealTimers();
    }
  });
});
