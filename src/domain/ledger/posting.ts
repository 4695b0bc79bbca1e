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
import { Prisma } from '../../generated/prisma/client.js';
import type { AccountName, GatewayAccount, LedgerEntryKind, PaymentMethod } from '../../generated/prisma/enums.js';
import type { DbTransaction } from '../context.js';
import { DomainError } from '../errors.js';
import { paymentMethodRow } from '../paymentMethods.js';

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

/** The gateway account a method's provider money moves through: the method's catalogue row. */
export const clearingAccountOf = (method: PaymentMethod): GatewayAccount => paymentMethodRow(method).clearingAccount;

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
  // Always lock merchant accounts in one order (organisation, then name): two postings over the
  // same accounts can then never deadlock.
  const ordered = [...movements].sort(byAccountOrder);
  const merchantMoves = ordered.filter((movement): movement is MerchantMovement => !('gateway' in movement.side));
  const balances: PostedBalance[] = [];
  for (const movement of merchantMoves.slice(0, -1)) balances.push(await moveBalance(tx, movement.side.organizationId, movement.side.account, movement.amount));
  // The last merchant account moves in the same statement that writes every entry: its row lock
  // (the hot one: every payment of a merchant credits `main`) is then held for one statement and
  // the COMMIT, not for an extra round trip.
  const earlier: EntryRow[] = ordered
    .filter((movement) => movement !== merchantMoves.at(-1))
    .map((movement) => {
      if ('gateway' in movement.side) return { accountId: null, gatewayAccount: movement.side.gateway, amount: movement.amount, balanceAfter: null };
      const moved = balances.find((balance) => balance.organizationId === (movement.side as MerchantSide).organizationId && balance.account === (movement.side as MerchantSide).account)!;
      return { accountId: moved.accountId, gatewayAccount: null, amount: movement.amount, balanceAfter: moved.balance };
    });
  const last = merchantMoves.at(-1);
  const lastBalance = await writeEntries(tx, postingId, posting, earlier, last);
  if (lastBalance && last) balances.push(lastBalance);
  return { postingId, balances };
}

type MerchantSide = Extract<LedgerSide, { organizationId: string }>;
type MerchantMovement = Movement & { side: MerchantSide };
interface EntryRow {
  accountId: string | null;
  gatewayAccount: GatewayAccount | null;
  amount: bigint;
  balanceAfter: bigint | null;
}

/**
 * ONE statement: moves `last` (conditionally: never below zero) and inserts its entry with
 * `earlier`'s. When `last` cannot move, nothing is inserted and it throws (see moveBalance).
 */
async function writeEntries(tx: DbTransaction, postingId: string, posting: Posting, earlier: EntryRow[], last: MerchantMovement | undefined): Promise<PostedBalance | null> {
  const text = (values: (string | bigint | null)[]) => values.map((value) => (value === null ? null : String(value)));
  const columns = Prisma.sql`${postingId}::uuid, ${posting.kind}::"LedgerEntryKind", ${posting.transactionId ?? null}::uuid, ${posting.payoutId ?? null}::uuid, ${posting.description ?? ''}`;
  const others = Prisma.sql`unnest(${text(earlier.map((entry) => entry.accountId))}::text[]::uuid[], ${text(earlier.map((entry) => entry.gatewayAccount))}::text[]::"GatewayAccount"[],
    ${text(earlier.map((entry) => entry.amount))}::text[]::bigint[], ${text(earlier.map((entry) => entry.balanceAfter))}::text[]::bigint[]) AS e(account_id, gateway_account, amount, balance_after)`;
  const insert = Prisma.sql`INSERT INTO "LedgerEntry" (id, "accountId", "gatewayAccount", amount, "balanceAfter", "postingId", kind, "transactionId", "payoutId", description)`;
  if (!last) {
    await tx.$executeRaw`${insert} SELECT gen_random_uuid(), e.account_id, e.gateway_account, e.amount, e.balance_after, ${columns} FROM ${others}`;
    return null;
  }
  const { organizationId, account } = last.side;
  const rows = await tx.$queryRaw<{ id: string; balance: bigint }[]>`
    WITH moved AS (
      UPDATE "Account" SET balance = balance + ${last.amount}, "updatedAt" = now()
      WHERE "organizationId" = ${organizationId}::uuid AND name = ${account}::"AccountName" AND balance + ${last.amount} >= 0
      RETURNING id, balance),
    entries AS (
      ${insert}
      SELECT gen_random_uuid(), moved.id, NULL, ${last.amount}, moved.balance, ${columns} FROM moved
      UNION ALL
      SELECT gen_random_uuid(), e.account_id, e.gateway_account, e.amount, e.balance_after, ${columns} FROM ${others} WHERE EXISTS (SELECT 1 FROM moved))
    SELECT id, balance FROM moved`;
  const row = rows[0];
  if (!row) throw await whyNotMoved(tx, organizationId, account);
  return { accountId: row.id, organizationId, account, balance: BigInt(row.balance) };
}

async function moveBalance(tx: DbTransaction, organizationId: string, account: AccountName, amount: bigint): Promise<PostedBalance> {
  const rows = await tx.$queryRaw<{ id: string; balance: bigint }[]>`
    UPDATE "Account" SET balance = balance + ${amount}, "updatedAt" = now()
    WHERE "organizationId" = ${organizationId}::uuid AND name = ${account}::"AccountName" AND balance + ${amount} >= 0
    RETURNING id, balance`;
  const row = rows[0];
  if (!row) throw await whyNotMoved(tx, organizationId, account);
  return { accountId: row.id, organizationId, account, balance: BigInt(row.balance) };
}

/**
 * A posting that CREDITS one merchant account, as CTEs of the caller's single statement: a credit
 * cannot be refused, so nothing else in that statement can be left half done, and no interactive
 * transaction is needed (a payment's settlement: see payments/attempts.ts). The merchant account and
 * the entries' kind come from the one row of an earlier CTE named `source` (columns
 * "organizationId", "accountName", "kind"); without that row nothing is written. Checked balanced
 * here, like post().
 */
export function creditPostingCtes(posting: {
  source: string;
  transactionId: string;
  description: string;
  credit: bigint;
  gatewaySides: { gateway: GatewayAccount; amount: bigint }[];
}): Prisma.Sql {
  const sum = posting.gatewaySides.reduce((total, side) => total + side.amount, posting.credit);
  if (sum !== 0n) throw new Error(`unbalanced credit posting: entries sum to ${sum}`);
  if (posting.credit < 0n) throw new Error('creditPostingCtes only credits: a debit may be refused and needs post()');
  const source = Prisma.raw(`"${posting.source.replace(/"/g, '')}"`);
  const common = Prisma.sql`${randomUUID()}::uuid, ${posting.transactionId}::uuid, ${posting.description}::text`;
  return Prisma.sql`
    credited AS (
      UPDATE "Account" a SET balance = a.balance + ${posting.credit}::bigint, "updatedAt" = now()
      FROM ${source} s WHERE a."organizationId" = s."organizationId" AND a.name = s."accountName"
      RETURNING a.id, a.balance, s.kind),
    credit_entries AS (
      INSERT INTO "LedgerEntry" (id, "postingId", "transactionId", description, "accountId", "gatewayAccount", kind, amount, "balanceAfter")
      SELECT gen_random_uuid(), ${common}, c.id, NULL, c.kind, ${posting.credit}::bigint, c.balance FROM credited c
      UNION ALL
      SELECT gen_random_uuid(), ${common}, NULL, g.account, c.kind, g.amount, NULL
      FROM credited c, unnest(${posting.gatewaySides.map((side) => side.gateway)}::text[]::"GatewayAccount"[],
        ${posting.gatewaySides.map((side) => String(side.amount))}::text[]::bigint[]) AS g(account, amount))`;
}

/**
 * A posting that DEBITS one merchant account, as CTEs of the caller's single statement: `debited`
 * (the account, moved only when its balance covers the debit: PostgreSQL refuses the rest, as in
 * post()) and `debit_entries` (written only when it moved). The caller's own rows in the same
 * statement must select FROM `debited` too, so that a refused debit writes nothing at all (the
 * caller may then run post() in a transaction to learn why, with its exact error). Entries may reference a payout inserted by the same
 * statement: foreign keys are checked when the statement ends. Checked balanced here, like post().
 */
export function debitPostingCtes(posting: {
  organizationId: string;
  account: AccountName;
  kind: LedgerEntryKind;
  /** What the entries are about: a payout or a transaction (a refund). */
  about: { payoutId: string } | { transactionId: string };
  description: string;
  debit: bigint;
  gatewaySides: { gateway: GatewayAccount; amount: bigint }[];
  /** An earlier CTE of the statement: the debit happens only when it has a row. */
  onlyIf?: string;
}): Prisma.Sql {
  const sides = posting.gatewaySides.filter((side) => side.amount !== 0n);
  const sum = sides.reduce((total, side) => total + side.amount, -posting.debit);
  if (sum !== 0n) throw new Error(`unbalanced debit posting: entries sum to ${sum}`);
  if (posting.debit <= 0n) throw new Error('debitPostingCtes only debits a positive amount');
  const payoutId = 'payoutId' in posting.about ? posting.about.payoutId : null;
  const transactionId = 'transactionId' in posting.about ? posting.about.transactionId : null;
  const common = Prisma.sql`${randomUUID()}::uuid, ${posting.kind}::"LedgerEntryKind", ${payoutId}::uuid, ${transactionId}::uuid, ${posting.description}::text`;
  const onlyIf = posting.onlyIf ? Prisma.sql`AND EXISTS (SELECT 1 FROM ${Prisma.raw(`"${posting.onlyIf.replace(/"/g, '')}"`)})` : Prisma.empty;
  return Prisma.sql`
    debited AS (
      UPDATE "Account" SET balance = balance - ${String(posting.debit)}::bigint, "updatedAt" = now()
      WHERE "organizationId" = ${posting.organizationId}::uuid AND name = ${posting.account}::"AccountName" AND balance - ${String(posting.debit)}::bigint >= 0 ${onlyIf}
      RETURNING id, balance),
    debit_entries AS (
      INSERT INTO "LedgerEntry" (id, "postingId", kind, "payoutId", "transactionId", description, "accountId", "gatewayAccount", amount, "balanceAfter")
      SELECT gen_random_uuid(), ${common}, d.id, NULL, -${String(posting.debit)}::bigint, d.balance FROM debited d
      UNION ALL
      SELECT gen_random_uuid(), ${common}, NULL, g.account, g.amount, NULL
      FROM debited, unnest(${sides.map((side) => side.gateway)}::text[]::"GatewayAccount"[], ${sides.map((side) => String(side.amount))}::text[]::bigint[]) AS g(account, amount))`;
}

/** A merchant account that did not move: missing, or the debit would take it below zero. */
async function whyNotMoved(tx: DbTransaction, organizationId: string, account: AccountName): Promise<DomainError> {
  const exists = await tx.account.findUnique({ where: { organizationId_name: { organizationId, name: account } }, select: { id: true } });
  return new DomainError(exists ? 'insufficient_balance' : 'merchant_account_unavailable');
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
