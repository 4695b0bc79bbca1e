/**
 * What must hold after every fault, checked straight in the database (never through the code under
 * test):
 *
 * - the ledger (test/support/ledger.ts): postings sum to zero, balances equal their entries, none
 *   negative, one payment posting per paid transaction, one net refund per refunded one, one debit
 *   per payout, reversed exactly when it failed or was cancelled;
 * - the provider's own record (the sandbox's books, SandboxProviderCall) agrees with the ledger:
 *   every reference was sent once (calls = 1), and what the provider did is what the gateway
 *   recorded: a payout it paid is completed, one it refused is failed; a refund it executed is the
 *   transaction's one succeeded refund; a collection it took is the transaction's one payment;
 * - every webhook event reached the merchant's receiver at least once, correctly signed;
 * - the service answers again, without repair.
 */
import { expect } from 'vitest';
import type { Db } from '../../../src/domain/ports.js';
import { expectLedgerInvariants, type LedgerFacts } from '../ledger.js';
import type { WebhookReceiver } from '../webhookReceiver.js';
import { call, type Answer } from './cluster.js';

type Sql = Pick<Db, '$queryRaw' | '$queryRawUnsafe'>;

/** A refund attempt's reference at the provider (refunds.ts providerReferenceOf), in SQL. */
const CURRENT_REFUND_REFERENCE = `(CASE WHEN r.attempts = 1 THEN r.id::text ELSE r.id::text || ':' || r.attempts END)`;

interface ProviderDisagreements {
  /** References the provider was asked to execute more than once. */
  sentTwice: { kind: string; reference: string; calls: number }[];
  payouts: { reference: string; provider: string | null; gateway: string | null }[];
  refunds: { reference: string; provider: string | null; gateway: string | null; transaction: string | null }[];
  collections: { reference: string; provider: string | null; gateway: string | null; transaction: string | null }[];
}

async function providerDisagreements(db: Sql): Promise<ProviderDisagreements> {
  const sentTwice = await db.$queryRawUnsafe<ProviderDisagreements['sentTwice']>(`
    SELECT kind, reference, calls FROM "SandboxProviderCall" WHERE calls <> 1 ORDER BY kind, reference`);
  const payouts = await db.$queryRawUnsafe<ProviderDisagreements['payouts']>(`
    SELECT c.reference, c.status AS provider, p.status::text AS gateway
    FROM "SandboxProviderCall" c LEFT JOIN "Payout" p ON p.id::text = c.reference
    WHERE c.kind = 'payout' AND (p.id IS NULL OR c.amount <> p.amount OR c.phone <> p."recipientPhone"
      OR (c.status = 'succeeded' AND p.status <> 'completed')
      OR (c.status = 'failed' AND p.status <> 'failed'))
    UNION ALL
    SELECT p.id::text, c.status, p.status::text
    FROM "Payout" p LEFT JOIN "SandboxProviderCall" c ON c.kind = 'payout' AND c.reference = p.id::text
    WHERE (p.status = 'completed' AND c.status IS DISTINCT FROM 'succeeded')
       OR (p.status = 'failed' AND c.status IS DISTINCT FROM 'failed')
       OR (p.status = 'cancelled' AND c.reference IS NOT NULL)`);
  const refunds = await db.$queryRawUnsafe<ProviderDisagreements['refunds']>(`
    SELECT c.reference, c.status AS provider, r.status::text AS gateway, t.status::text AS transaction
    FROM "SandboxProviderCall" c
      LEFT JOIN "Refund" r ON r.id::text = split_part(c.reference, ':', 1)
      LEFT JOIN "Transaction" t ON t.id = r."transactionId"
    WHERE c.kind = 'refund' AND (r.id IS NULL OR c.amount <> r.amount
      -- what the provider executed is the transaction's one succeeded refund (its current attempt)
      OR (c.status = 'succeeded' AND (r.status <> 'succeeded' OR t.status <> 'refunded' OR c.reference <> ${CURRENT_REFUND_REFERENCE}))
      OR (c.status = 'failed' AND c.reference = ${CURRENT_REFUND_REFERENCE} AND r.status <> 'failed'))
    UNION ALL
    SELECT ${CURRENT_REFUND_REFERENCE}, c.status, r.status::text, t.status::text
    FROM "Refund" r JOIN "Transaction" t ON t.id = r."transactionId"
      LEFT JOIN "SandboxProviderCall" c ON c.kind = 'refund' AND c.reference = ${CURRENT_REFUND_REFERENCE}
    WHERE (r.status = 'succeeded' AND (c.status IS DISTINCT FROM 'succeeded' OR t.status <> 'refunded'))
       OR (r.status = 'failed' AND c.status IS DISTINCT FROM 'failed')
       OR (t.status = 'refunded' AND r.status <> 'succeeded')
    UNION ALL
    SELECT 'transaction ' || t.id::text, NULL, NULL, t.status::text
    FROM "Transaction" t
    WHERE t.status = 'refunded' AND NOT EXISTS (
      SELECT 1 FROM "Refund" r JOIN "SandboxProviderCall" c ON c.kind = 'refund' AND c.reference = ${CURRENT_REFUND_REFERENCE} AND c.status = 'succeeded'
      WHERE r."transactionId" = t.id)`);
  const collections = await db.$queryRawUnsafe<ProviderDisagreements['collections']>(`
    SELECT c.reference, c.status AS provider, a.state::text AS gateway, t.status::text AS transaction
    FROM "SandboxProviderCall" c
      LEFT JOIN "PaymentAttempt" a ON a.id::text = c.reference
      LEFT JOIN "Transaction" t ON t.id = a."transactionId"
    WHERE c.kind = 'collect' AND (a.id IS NULL OR c.amount <> a.amount
      OR (c.status = 'succeeded' AND (a.state <> 'succeeded' OR t.status NOT IN ('paid', 'paid_and_blocked', 'refunded')))
      OR (c.status = 'failed' AND a.state <> 'failed'))
    UNION ALL
    SELECT a.id::text, c.status, a.state::text, t.status::text
    FROM "PaymentAttempt" a JOIN "Transaction" t ON t.id = a."transactionId"
      LEFT JOIN "SandboxProviderCall" c ON c.kind = 'collect' AND c.reference = a.id::text
    WHERE a.state = 'succeeded' AND c.status IS DISTINCT FROM 'succeeded'
    UNION ALL
    SELECT 'transaction ' || t.id::text, COUNT(c.reference)::text || ' collections succeeded', NULL, t.status::text
    FROM "Transaction" t
      LEFT JOIN "PaymentAttempt" a ON a."transactionId" = t.id
      LEFT JOIN "SandboxProviderCall" c ON c.kind = 'collect' AND c.reference = a.id::text AND c.status = 'succeeded'
    GROUP BY t.id, t.status
    HAVING COUNT(c.reference) <> (CASE WHEN t.status IN ('paid', 'paid_and_blocked', 'refunded') THEN 1 ELSE 0 END)`);
  return { sentTwice, payouts, refunds, collections };
}

export async function expectProviderAgreesWithLedger(db: Sql): Promise<void> {
  const found = await providerDisagreements(db);
  expect(found.sentTwice, 'references the provider was sent more than once').toEqual([]);
  expect(found.payouts, 'payouts where the provider and the gateway disagree').toEqual([]);
  expect(found.refunds, 'refunds where the provider and the gateway disagree').toEqual([]);
  expect(found.collections, 'payments where the provider and the gateway disagree').toEqual([]);
}

export interface OpenCall {
  kind: 'payout' | 'refund' | 'payment';
  id: string;
  /** What the provider's books say (null: it never received it). */
  provider: string | null;
}

/** Calls the gateway still holds open (sent, not settled), with what the provider knows of each. */
async function openProviderCalls(db: Sql): Promise<OpenCall[]> {
  return db.$queryRawUnsafe<OpenCall[]>(`
    SELECT 'payout' AS kind, p.id::text AS id, c.status AS provider
    FROM "Payout" p LEFT JOIN "SandboxProviderCall" c ON c.kind = 'payout' AND c.reference = p.id::text
    WHERE p.status = 'pending' AND p."sentAt" IS NOT NULL
    UNION ALL
    SELECT 'refund', r.id::text, c.status
    FROM "Refund" r LEFT JOIN "SandboxProviderCall" c ON c.kind = 'refund' AND c.reference = ${CURRENT_REFUND_REFERENCE}
    WHERE r.status = 'pending'
    UNION ALL
    SELECT 'payment', a.id::text, c.status
    FROM "PaymentAttempt" a LEFT JOIN "SandboxProviderCall" c ON c.kind = 'collect' AND c.reference = a.id::text
    WHERE a.state = 'collecting'`);
}

/**
 * Waits (bounded) until every call the provider has answered for good is settled by the gateway
 * (the reconcilers' work), and returns what is still open: calls the provider never received,
 * which must stay open (never failed on "not found").
 */
export async function waitUntilReconciled(db: Sql, timeoutMs: number): Promise<OpenCall[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await openProviderCalls(db);
    const answered = open.filter((item) => item.provider !== null);
    if (answered.length === 0) return open;
    if (Date.now() > deadline) {
      expect(answered, `calls the provider answered that no reconciler settled within ${timeoutMs} ms`).toEqual([]);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every webhook event (each delivery of it) reached the receiver at least once, signed, within `timeoutMs`. */
export async function expectEveryWebhookDelivered(db: Pick<Db, 'webhookDelivery'>, receiver: WebhookReceiver, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const deliveries = await db.webhookDelivery.findMany({ select: { id: true, eventId: true, status: true, attemptCount: true } });
    const received = new Set(receiver.received.filter((request) => request.signatureValid === true).map((request) => String(request.headers['x-delivery-id'])));
    const missing = deliveries.filter((delivery) => delivery.status !== 'delivered' || !received.has(delivery.id));
    if (missing.length === 0) {
      const events = new Set(receiver.received.map((request) => String(request.headers['x-event-id'])));
      for (const delivery of deliveries) expect(events.has(delivery.eventId)).toBe(true);
      return deliveries.length;
    }
    if (Date.now() > deadline) expect(missing, `webhook deliveries not delivered (signed) within ${timeoutMs} ms`).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The instance answers again without anyone repairing it: /healthz, and a real write (a new
 * transaction) with `key`, within `timeoutMs`.
 */
export async function expectAnswersAgain(instance: { url: string; name?: string }, key: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: Answer | null = null;
  for (;;) {
    const health = await call(instance, 'GET', '/healthz', { timeoutMs: 5_000 });
    if (health.status === 200) {
      last = await call(instance, 'POST', '/api/v2/transactions', {
        key,
        timeoutMs: 5_000,
        body: {
          method_of_payment: ['wave'],
          products: [{ name: 'Answer check', price: 500, quantity: 1 }],
          customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221771234567' },
          success_url: 'https://shop.example.sn/merci',
          error_url: 'https://shop.example.sn/erreur',
        },
      });
      if (last.status === 200) return;
    }
    if (Date.now() > deadline) {
      expect(
        { instance: instance.name, status: last?.status ?? health.status, body: last?.body ?? health.body },
        `the instance did not answer again within ${timeoutMs} ms`,
      ).toMatchObject({
        status: 200,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The ledger invariants and the provider's agreement, after the reconcilers settled what they can. */
export async function expectMoneyInvariants(db: Sql, options: { reconcileTimeoutMs?: number } = {}): Promise<{ facts: LedgerFacts; open: OpenCall[] }> {
  const open = await waitUntilReconciled(db, options.reconcileTimeoutMs ?? 20_000);
  const facts = await expectLedgerInvariants(db);
  await expectProviderAgreesWithLedger(db);
  return { facts, open };
}

/**
 * Pairs of an organisation's payouts that were in flight at the provider at the same time, from the
 * provider's own books: each call takes `latencyMs` (SANDBOX_LATENCY_MS), so two calls recorded
 * less than that apart overlapped. Empty: never two at once.
 */
export async function overlappingPayouts(db: Sql, organizationId: string, latencyMs: number): Promise<{ first: string; second: string; gapMs: number }[]> {
  const calls = await db.$queryRawUnsafe<{ reference: string; at: Date }[]>(
    `SELECT c.reference, c."createdAt" AS at FROM "SandboxProviderCall" c JOIN "Payout" p ON p.id::text = c.reference
     WHERE c.kind = 'payout' AND p."organizationId" = $1::uuid ORDER BY c."createdAt", c.reference`,
    organizationId,
  );
  const overlaps: { first: string; second: string; gapMs: number }[] = [];
  // 2 ms: timestamps are kept to the millisecond.
  for (let i = 1; i < calls.length; i++) {
    const gapMs = calls[i]!.at.getTime() - calls[i - 1]!.at.getTime();
    if (gapMs < latencyMs - 2) overlaps.push({ first: calls[i - 1]!.reference, second: calls[i]!.reference, gapMs });
  }
  return overlaps;
}
