/**
 * The ledger's invariants, checked straight in the database (not through the code under test):
 * every posting sums to zero, every merchant account's balance equals the sum of its entries and
 * its last entry's balanceAfter, and no merchant balance is negative.
 */
import { expect } from 'vitest';
import type { Db } from '../../src/domain/ports.js';

export interface LedgerFacts {
  unbalancedPostings: { postingId: string; sum: bigint }[];
  driftingAccounts: { accountId: string; balance: bigint; entries: bigint }[];
  negativeAccounts: { accountId: string; balance: bigint }[];
  postings: number;
}

export async function ledgerFacts(db: Pick<Db, '$queryRaw'>): Promise<LedgerFacts> {
  const unbalancedPostings = await db.$queryRaw<{ postingId: string; sum: bigint }[]>`
    SELECT "postingId", SUM(amount)::bigint AS sum FROM "LedgerEntry" GROUP BY "postingId" HAVING SUM(amount) <> 0`;
  const driftingAccounts = await db.$queryRaw<{ accountId: string; balance: bigint; entries: bigint }[]>`
    SELECT a.id AS "accountId", a.balance, COALESCE(SUM(e.amount), 0)::bigint AS entries
    FROM "Account" a LEFT JOIN "LedgerEntry" e ON e."accountId" = a.id
    GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(e.amount), 0)`;
  const negativeAccounts = await db.$queryRaw<{ accountId: string; balance: bigint }[]>`
    SELECT id AS "accountId", balance FROM "Account" WHERE balance < 0`;
  const [count] = await db.$queryRaw<{ postings: bigint }[]>`SELECT COUNT(DISTINCT "postingId")::bigint AS postings FROM "LedgerEntry"`;
  return { unbalancedPostings, driftingAccounts, negativeAccounts, postings: Number(count?.postings ?? 0n) };
}

/** Asserts the invariants; returns the facts for further checks. */
export async function expectBalancedLedger(db: Pick<Db, '$queryRaw'>): Promise<LedgerFacts> {
  const facts = await ledgerFacts(db);
  expect(facts.unbalancedPostings, 'postings whose entries do not sum to zero').toEqual([]);
  expect(facts.driftingAccounts, 'accounts whose balance differs from the sum of their entries').toEqual([]);
  expect(facts.negativeAccounts, 'merchant accounts below zero').toEqual([]);
  return facts;
}

/** A merchant account's balance, read straight from the database. */
export async function balanceOf(db: Db, organizationId: string, account: 'main' | 'escrow' = 'main'): Promise<bigint> {
  const row = await db.account.findUniqueOrThrow({ where: { organizationId_name: { organizationId, name: account } } });
  return row.balance;
}

/**
 * Money movements that must match each object's state, read from the ledger:
 * - a transaction that was paid (paid, paid_and_blocked, refunded) has exactly one payment posting
 *   (`payment`, or `escrow_hold` when held); any other has none;
 * - the net amount refunded from its merchant's accounts (`refund` minus `refund_reversal`) is its
 *   amount when it is refunded or a refund of it is in flight (debited, awaiting the provider),
 *   and zero otherwise: one net refund, never two;
 * - every payout has exactly one debit of amount + fees; it is reversed exactly once when the
 *   payout failed or was cancelled, and never otherwise.
 * Returns the objects that break one (empty lists: all hold).
 */
export interface MoneyMismatches {
  transactions: { id: string; status: string; amount: bigint; paymentPostings: number; netRefunded: bigint; refundInFlight: boolean }[];
  payouts: { id: string; status: string; amount: bigint; fees: bigint; debits: number; debited: bigint; reversals: number }[];
}

export async function moneyMismatches(db: Pick<Db, '$queryRaw'>): Promise<MoneyMismatches> {
  const transactions = await db.$queryRaw<MoneyMismatches['transactions']>`
    SELECT * FROM (
      SELECT t.id, t.status::text AS status, t.amount,
        (SELECT COUNT(DISTINCT e."postingId") FROM "LedgerEntry" e
          WHERE e."transactionId" = t.id AND e.kind IN ('payment', 'escrow_hold'))::int AS "paymentPostings",
        (SELECT COALESCE(-SUM(e.amount), 0) FROM "LedgerEntry" e
          WHERE e."transactionId" = t.id AND e."accountId" IS NOT NULL AND e.kind IN ('refund', 'refund_reversal'))::bigint AS "netRefunded",
        EXISTS (SELECT 1 FROM "Refund" r WHERE r."transactionId" = t.id AND r.status = 'pending') AS "refundInFlight"
      FROM "Transaction" t) facts
    WHERE "paymentPostings" <> (CASE WHEN status IN ('paid', 'paid_and_blocked', 'refunded') THEN 1 ELSE 0 END)
       OR "netRefunded" <> (CASE WHEN status = 'refunded' OR "refundInFlight" THEN amount ELSE 0 END)`;
  const payouts = await db.$queryRaw<MoneyMismatches['payouts']>`
    SELECT * FROM (
      SELECT p.id, p.status::text AS status, p.amount, p.fees,
        (SELECT COUNT(DISTINCT e."postingId") FROM "LedgerEntry" e WHERE e."payoutId" = p.id AND e.kind = 'payout')::int AS debits,
        (SELECT COALESCE(SUM(e.amount), 0) FROM "LedgerEntry" e
          WHERE e."payoutId" = p.id AND e.kind = 'payout' AND e."accountId" IS NOT NULL)::bigint AS debited,
        (SELECT COUNT(DISTINCT e."postingId") FROM "LedgerEntry" e WHERE e."payoutId" = p.id AND e.kind = 'payout_reversal')::int AS reversals
      FROM "Payout" p) facts
    WHERE debits <> 1 OR debited <> -(amount + fees)
       OR reversals <> (CASE WHEN status IN ('failed', 'cancelled') THEN 1 ELSE 0 END)`;
  return { transactions, payouts };
}

/** expectBalancedLedger, and every transaction's and payout's movements match its state (moneyMismatches). */
export async function expectLedgerInvariants(db: Pick<Db, '$queryRaw'>): Promise<LedgerFacts> {
  const facts = await expectBalancedLedger(db);
  const mismatches = await moneyMismatches(db);
  expect(mismatches.transactions, 'transactions whose payment postings or net refund do not match their state').toEqual([]);
  expect(mismatches.payouts, 'payouts without exactly one debit, or whose reversal does not match their state').toEqual([]);
  return facts;
}
