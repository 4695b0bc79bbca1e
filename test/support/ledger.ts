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
