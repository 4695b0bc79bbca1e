/**
 * The one way money moves: a posting is a balanced set of entries (they sum to zero) over the
 * organisation's accounts (`main`, `escrow`) and the gateway's own (provider clearing per method,
 * fee revenue, adjustments). It runs inside the caller's database transaction, so a state change,
 * its entries and its outbox rows commit together or not at all.
 *
 * A merchant account's balance moves by a conditional UPDATE (`balance + amount >= 0`), so a
 * debit the balance cannot cover is refused by PostgreSQL itself, whatever ran concurrently; the
 * row lock that UPDATE takes serialises movements of one account until the transaction ends.
 * Every entry records the balance after it, so `balance` can be checked against the entries.
 * Gateway accounts keep no balance row (see schema.prisma's GatewayAccount).
 */
import { randomUUID } from 'node:crypto';
import type { AccountName, GatewayAccount, LedgerEntryKind, PaymentMethod } from '../../generated/prisma/enums.js';
import type { DbTransaction } from '../context.js';
import { DomainError } from '../errors.js';

export type LedgerSide =
  | { organizationId: string; account: AccountName }
  | { gateway: GatewayAccount };

export interface Movement {
  side: LedgerSide;
  /** Signed XOF: credit > 0, debit < 0. */
  amount: bigint;
}

export interface Posting {
  kind: LedgerEntryKind;
  movements: Movement[];
  transactionId?: string;
  payoutId?: string;
  description?: string;
}

export interface PostedBalance {
  accountId: string;
  organizationId: string;
  account: AccountName;
  balance: bigint;
}

export const clearingAccountOf = (method: PaymentMethod): GatewayAccount => (method === 'wave' ? 'provider_clearing_wave' : 'provider_clearing_orange_money');

/**
 * Writes one balanced posting. Throws `insufficient_balance` (and so rolls the caller's
 * transaction back) when a debit would take a merchant account below zero.
 */
export async function post(tx: DbTransaction, posting: Posting): Promise<{ postingId: string; balances: PostedBalance[] }> {
  const movements = posting.movements.filter((movement) => movement.amount !== 0n);
  const sum = movements.reduce((total, movement) => total + movement.amount, 0n);
  // A programming error, never a user's: an unbalanced posting must not reach the database.
  if (sum !== 0n) throw new Error(`unbalanced ${posting.kind} posting: entries sum to ${sum}`);

  const postingId = randomUUID();
  const balances: PostedBalance[] = [];
  const entries = [];
  // Always lock merchant accounts in one order (organisation, then name): two postings over the
  // same accounts can then never deadlock.
  for (const movement of [...movements].sort(byAccountOrder)) {
    const base = { postingId, kind: posting.kind, amount: movement.amount, transactionId: posting.transactionId ?? null, payoutId: posting.payoutId ?? null, description: posting.description ?? '' };
    if ('gateway' in movement.side) {
      entries.push({ ...base, gatewayAccount: movement.side.gateway, accountId: null, balanceAfter: null });
      continue;
    }
    const moved = await moveBalance(tx, movement.side.organizationId, movement.side.account, movement.amount);
    balances.push(moved);
    entries.push({ ...base, accountId: moved.accountId, gatewayAccount: null, balanceAfter: moved.balance });
  }
  await tx.ledgerEntry.createMany({ data: entries });
  return { postingId, balances };
}

async function moveBalance(tx: DbTransaction, organizationId: string, account: AccountName, amount: bigint): Promise<PostedBalance> {
  const rows = await tx.$queryRaw<{ id: string; balance: bigint }[]>`
    UPDATE "Account" SET balance = balance + ${amount}, "updatedAt" = now()
    WHERE "organizationId" = ${organizationId}::uuid AND name = ${account}::"AccountName" AND balance + ${amount} >= 0
    RETURNING id, balance`;
  const row = rows[0];
  if (!row) {
    const exists = await tx.account.findUnique({ where: { organizationId_name: { organizationId, name: account } }, select: { id: true } });
    if (!exists) throw new DomainError('merchant_account_unavailable');
    throw new DomainError('insufficient_balance');
  }
  return { accountId: row.id, organizationId, account, balance: BigInt(row.balance) };
}

const orderKey = (side: LedgerSide): string => ('gateway' in side ? `~${side.gateway}` : `${side.organizationId}:${side.account}`);
const byAccountOrder = (a: Movement, b: Movement): number => orderKey(a.side).localeCompare(orderKey(b.side));

/** The reverse of a posting: each entry negated, in a posting of its own (ledgers never erase). */
export async function reverse(tx: DbTransaction, postingId: string, kind: LedgerEntryKind, description: string): Promise<void> {
  const entries = await tx.ledgerEntry.findMany({ where: { postingId }, include: { account: { select: { organizationId: true, name: true } } } });
  if (entries.length === 0) throw new Error(`posting ${postingId} has no entries to reverse`);
  const first = entries[0]!;
  await post(tx, {
    kind,
    description,
    transactionId: first.transactionId ?? undefined,
    payoutId: first.payoutId ?? undefined,
    movements: entries.map((entry) => ({
      amount: -entry.amount,
      side: entry.account ? { organizationId: entry.account.organizationId, account: entry.account.name } : { gateway: entry.gatewayAccount! },
    })),
  });
}
