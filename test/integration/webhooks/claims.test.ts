/**
 * How an instance claims first attempts from the outbox (domain/webhooks/store.ts), on real
 * PostgreSQL: rows another instance is claiming at that moment are skipped, not waited for, and
 * each endpoint gets no more than its room. No dispatcher runs here: the claims are called directly.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueFirstAttempts, type FirstAttemptRoom } from '../../../src/domain/webhooks/store.js';
import { useGateway } from '../../support/gateway.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver.js';
import { addWebhook, merchantWithWebhook, paidTransaction } from '../../support/webhooks.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });
const LEASE_MS = 60_000;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const anyRoom = (limit: number, endpointRooms: FirstAttemptRoom['endpointRooms'] = new Map()): FirstAttemptRoom => ({ limit, perEndpoint: 100, endpointRooms });

/** The pending first attempts of these transactions, oldest first. */
async function pendingIds(transactionIds: string[]): Promise<string[]> {
  const rows = await gateway.ctx.db.webhookDelivery.findMany({
    where: { transactionId: { in: transactionIds }, status: 'pending', attemptCount: 0 },
    orderBy: { nextAttemptAt: 'asc' },
  });
  return rows.map((row) => row.id);
}

/** Fails instead of hanging when a claim waits for a lock it should have skipped. */
function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${seconds} s`)), seconds * 1_000))]);
}

describe('claiming first attempts', () => {
  it('skips the rows another instance holds, takes the next ones at once, and takes the skipped ones once they are free', async () => {
    const { key } = await merchantWithWebhook(gateway, receiver, '/skip-locked');
    const transactions = [];
    for (let i = 0; i < 4; i++) transactions.push((await paidTransaction(gateway, key)).id);
    const [oldest, second, ...newer] = await pendingIds(transactions);

    // Another instance's claim in progress: a transaction holding the two oldest rows.
    const other = new pg.Client({ connectionString: gateway.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT id FROM "WebhookDelivery" WHERE id = ANY($1::uuid[]) FOR UPDATE`, [[oldest, second]]);

      const claimed = await withinSeconds(3, claimDueFirstAttempts(gateway.ctx.db, new Date(), LEASE_MS, anyRoom(10)));
      expect(claimed.map((delivery) => delivery.id).sort()).toEqual([...newer].sort());
      expect(claimed.every((delivery) => delivery.attempt === 1)).toBe(true);
      await other.query('ROLLBACK');
    } finally {
      await other.end();
    }

    const afterRelease = await claimDueFirstAttempts(gateway.ctx.db, new Date(), LEASE_MS, anyRoom(10));
    expect(afterRelease.map((delivery) => delivery.id).sort()).toEqual([oldest, second].sort());
    // Claimed once each: nothing left to claim.
    expect(await claimDueFirstAttempts(gateway.ctx.db, new Date(), LEASE_MS, anyRoom(10))).toEqual([]);
  });

  it('gives each endpoint no more than its room; what is left over stays due', async () => {
    const {
      organization,
      key,
      webhook: { webhook: busy },
    } = await merchantWithWebhook(gateway, receiver, '/room-busy');
    const transactions = [];
    for (let i = 0; i < 3; i++) transactions.push((await paidTransaction(gateway, key)).id);
    const { webhook: quiet } = await addWebhook(gateway, receiver, organization.id, '/room-quiet');
    // Every payment from now on goes to both endpoints.
    transactions.push((await paidTransaction(gateway, key)).id);

    // The busy endpoint (4 due) may take 1 more; the quiet one (1 due) has the default room.
    const claimed = await claimDueFirstAttempts(gateway.ctx.db, new Date(), LEASE_MS, { limit: 10, perEndpoint: 5, endpointRooms: new Map([[busy.id, 1]]) });
    const perEndpoint = (id: string) => claimed.filter((delivery) => delivery.webhookId === id).length;
    expect(perEndpoint(busy.id)).toBe(1);
    expect(perEndpoint(quiet.id)).toBe(1);
    expect(await pendingIds(transactions)).toHaveLength(3);

    // A full endpoint takes nothing; the others are still served.
    const none = await claimDueFirstAttempts(gateway.ctx.db, new Date(), LEASE_MS, { limit: 10, perEndpoint: 5, endpointRooms: new Map([[busy.id, 0]]) });
    expect(none).toEqual([]);
    const rest = await claimDueFirstAttempts(gateway.ctx.db, new Date(), LEASE_MS, anyRoom(2));
    expect(rest.map((delivery) => delivery.webhookId)).toEqual([busy.id, busy.id]);
    expect(await pendingIds(transactions)).toHaveLength(1);
  });
});
