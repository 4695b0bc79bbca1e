/**
 * The ledger's store: the only place its SQL lives, one function per effect. The rules (a posting
 * balances, merchant accounts are locked in one order, why a movement was refused) are in
 * posting.ts; the reads behind the account operations are here too.
 *
 * A posting is written by ONE builder of CTEs, `ctesOfPosting`: run alone by post() (writePosting),
 * or embedded in a caller's single statement (a payment's settlement, a refund's or a payout's
 * first phase). Every value is a parameter, so one shape of posting always has one SQL text: the
 * callers run it as a prepared statement.
 */
import { Prisma, type Account, type LedgerEntry } from '../../generated/prisma/client.js';
import type { AccountName, GatewayAccount, LedgerEntryKind } from '../../generated/prisma/enums.js';
import type { Db, DbTransaction } from '../context.js';

export interface AccountStats {
  /** XOF, over every account of the scope (escrow included: it is the merchant's money too). */
  totalBalance: bigint;
  accountCount: number;
  activeAccountCount: number;
}

/** A value read from the one row of an earlier CTE of the caller's statement. */
export interface FromCte {
  cte: string;
}

/** A merchant account: named, or by the row of an earlier CTE (columns "organizationId", "accountName"). */
export type MerchantAccountRef = { organizationId: string; account: AccountName } | FromCte;

/**
 * An amount only the statement knows (read from rows it locked): the sum of named columns of the
 * one row of an earlier CTE of that statement, each counted with its sign. Typed, never SQL text,
 * so a posting of such amounts is still checked balanced before it runs (posting.ts): per column,
 * its signs over the posting's movements sum to zero. No row, no amount: nothing moves.
 */
export interface AmountOf {
  cte: string;
  terms: { column: string; sign: 1 | -1 }[];
}

/** Signed XOF: given, or read by the statement. */
export type Amount = bigint | AmountOf;

/** A gateway account: named, or the text of a column of the one row of an earlier CTE. */
export type GatewayRef = GatewayAccount | { cte: string; column: string };

/** A text: given, or a column of the one row of an earlier CTE. */
export type TextRef = string | { cte: string; column: string };

/** One posting of a statement: its own id, kind and entries. */
export interface PostingPart {
  postingId: string;
  /** The entries' kind, or the "kind" column of an earlier CTE's row. */
  kind: LedgerEntryKind | FromCte;
  transactionId: string | null;
  payoutId: string | null;
  description: TextRef;
  /** This posting's amount on some of the statement's merchant accounts (`account`: an index into PostingRows.accounts), each at most once. */
  merchantMoves: { account: number; amount: Amount }[];
  gatewaySides: { gateway: GatewayRef; amount: Amount }[];
}

/**
 * What one statement posts: one posting, or several over shared merchant accounts (a refund of a
 * held transaction: escrow -> main, then main -> the provider's clearing account). One statement
 * may update a row only once, so each merchant account moves ONCE, by the sum of its amounts over
 * the postings, and each posting's entries record the balance after that posting (as if they had
 * been posted one after another, in the order given).
 */
export interface PostingRows {
  /**
   * The name of the CTE of the last merchant movement: it has a row iff the whole posting was
   * written, so the caller's own rows select FROM it.
   */
  as: string;
  /** Each merchant account once, in lock order (posting.ts decides it); none for postings between gateway accounts only. */
  accounts: MerchantAccountRef[];
  /** In the order they are posted (at least one). */
  postings: PostingPart[];
  /** An earlier CTE of the statement: nothing moves unless it has a row. */
  onlyIf?: string;
}

const quoted = (name: string): string => `"${name.replace(/"/g, '')}"`;
const cte = (name: string): Prisma.Sql => Prisma.raw(quoted(name));

/** An amount read by the statement, as a scalar subquery of its CTE's one row (NULL when it has none). */
const amountSql = (amount: AmountOf): Prisma.Sql =>
  Prisma.raw(
    `(SELECT ${amount.terms.map(({ column, sign }, index) => `${sign < 0 ? '-' : index > 0 ? '+' : ''}${quoted(column)}`).join(' ')} FROM ${quoted(amount.cte)})::bigint`,
  );

/** A given amount is a value (a slot); a read one is part of the text. */
const isGiven = (amount: Amount): amount is bigint => typeof amount === 'bigint';

/** Gateway sides whose account and amount are both given go in one unnest (their count never changes the text); the others each have a row of their own. */
const givenSides = (part: PostingPart) =>
  part.gatewaySides.filter((side): side is { gateway: GatewayAccount; amount: bigint } => typeof side.gateway === 'string' && isGiven(side.amount));
const readSides = (part: PostingPart) => part.gatewaySides.filter((side) => !(typeof side.gateway === 'string' && isGiven(side.amount)));

/** The CTE name of each merchant account's movement: the last one is `as`, the earlier ones `as_1`, `as_2`... */
const movedCteNames = (rows: PostingRows): string[] => rows.accounts.map((_, index, all) => (index === all.length - 1 ? rows.as : `${rows.as}_${index + 1}`));

/**
 * The postings as CTEs of one statement. Each merchant account moves by a conditional UPDATE
 * (`balance + amount >= 0`), so a debit the balance cannot cover is refused by PostgreSQL itself,
 * whatever ran concurrently; the row lock that UPDATE takes serialises movements of one account
 * until the transaction ends. Each movement runs only once the one before it moved (PostgreSQL
 * runs the earlier CTE first, as a one-time filter of the later one's scan): the accounts are
 * locked in the order given, and after a refusal nothing later moves. The entries (the merchant
 * ones with the balance after them) are written only when the last movement moved. A refusal of
 * a later movement leaves the earlier ones moved: a posting of several merchant movements runs in
 * a database transaction its refusal rolls back (post() does). A posting between gateway accounts
 * only (nothing it moves can be refused) writes its entries unconditionally, or when `onlyIf` has a
 * row. Entries may reference a row the same statement inserts (a payout): foreign keys are checked
 * when the statement ends.
 *
 * Several postings: an account moves by the sum of its amounts over them (a movement by 0 still
 * runs, and locks the account), and an entry of a zero amount is not written, so a posting whose
 * amounts the statement reads as 0 (one its rows do not call for) writes nothing.
 */
export function ctesOfPosting(rows: PostingRows): Prisma.Sql {
  const key = shapeOf(rows);
  let template = templates.get(key);
  if (!template) {
    template = templateOf(rows);
    templates.set(key, template);
  }
  return new Prisma.Sql(
    template.strings,
    template.reads.map((read) => read(rows)),
  );
}

/**
 * A posting's SQL text depends only on its shape (every value is a parameter), so each shape is
 * composed once and kept: a call then only reads its values into the template's slots. Composing
 * the nested fragments on every request cost a payout's hot statement a quarter of the gateway's
 * CPU (docs/benchmarks-history.md, issue 18), which is why the payout and refund statements had
 * written their entries by hand instead; with the template they compose this one builder at the
 * cost of a flat text.
 */
interface PostingTemplate {
  strings: string[];
  reads: ((rows: PostingRows) => unknown)[];
}
const templates = new Map<string, PostingTemplate>();

const readOrNull = <T>(value: T | string): T | null => (typeof value === 'string' ? null : value);

/** What the text depends on: names of CTEs, which sides, kinds and descriptions are given or read, and from where. */
const shapeOf = (rows: PostingRows): string =>
  JSON.stringify([
    rows.as,
    rows.accounts.map((account) => ('cte' in account ? account.cte : null)),
    rows.postings.map((part) => [
      readOrNull(part.kind),
      readOrNull(part.description),
      part.merchantMoves.map((move) => [move.account, isGiven(move.amount) ? null : move.amount]),
      readSides(part).map((side) => [readOrNull(side.gateway), isGiven(side.amount) ? null : side.amount]),
    ]),
    rows.onlyIf ?? null,
  ]);

/** A value's slot while a template is composed: how to read it from a posting of that shape. */
class Slot {
  constructor(readonly read: (rows: PostingRows) => unknown) {}
}

function templateOf(shape: PostingRows): PostingTemplate {
  const sql = composeCtes(shape, (read) => new Slot(read));
  return {
    strings: [...sql.strings],
    reads: sql.values.map((value) => {
      if (!(value instanceof Slot)) throw new Error('a posting template holds a value that is not a slot');
      return value.read;
    }),
  };
}

/** Zero sides write no entry; they only change the arrays' lengths, never the text. */
const nonZeroSides = (part: PostingPart) => givenSides(part).filter((side) => side.amount !== 0n);

type SlotOf = (read: (rows: PostingRows) => unknown) => Slot;

/** Where a merchant amount is in the shape: posting `part`, its movement `move`. */
interface MoveAt {
  part: number;
  move: number;
}

/** A merchant movement's amount in the text: a slot when given, the subquery when read. */
const amountAt = (shape: PostingRows, { part, move }: MoveAt, slot: SlotOf): Prisma.Sql => {
  const amount = shape.postings[part]!.merchantMoves[move]!.amount;
  return isGiven(amount) ? Prisma.sql`${slot((rows) => String(rows.postings[part]!.merchantMoves[move]!.amount))}::bigint` : amountSql(amount);
};

/** The sum of merchant amounts: the one amount as it is, several given ones in one slot, read ones added to it. */
function sumAt(shape: PostingRows, at: MoveAt[], slot: SlotOf): Prisma.Sql {
  if (at.length === 1) return amountAt(shape, at[0]!, slot);
  const given = at.filter(({ part, move }) => isGiven(shape.postings[part]!.merchantMoves[move]!.amount));
  const read = at.filter((where) => !given.includes(where)).map((where) => amountAt(shape, where, slot));
  const givenSum = (rows: PostingRows) =>
    String(given.reduce((total, { part, move }) => total + (rows.postings[part]!.merchantMoves[move]!.amount as bigint), 0n));
  const terms = given.length > 0 ? [Prisma.sql`${slot(givenSum)}::bigint`, ...read] : read;
  return Prisma.sql`(${Prisma.join(terms, ' + ')})`;
}

/** Every movement of merchant account `account` over the postings, in posting order. */
const movesOn = (shape: PostingRows, account: number): MoveAt[] =>
  shape.postings.flatMap((part, partIndex) =>
    part.merchantMoves.flatMap((move, moveIndex) => (move.account === account ? [{ part: partIndex, move: moveIndex }] : [])),
  );

/** The postings' CTEs, every value a slot (see ctesOfPosting for what they do). */
function composeCtes(shape: PostingRows, slot: SlotOf): Prisma.Sql {
  const names = movedCteNames(shape);
  const several = shape.postings.length > 1;
  const moves = shape.accounts.map((account, index) =>
    movedCte(names[index]!, account, sumAt(shape, movesOn(shape, index), slot), index, slot, index === 0 ? shape.onlyIf : names[index - 1]),
  );
  const condition = names.length > 0 ? shape.as : shape.onlyIf;
  const whenWritten = condition ? Prisma.sql`EXISTS (SELECT 1 FROM ${cte(condition)})` : Prisma.sql`true`;
  const entries = shape.postings.flatMap((part, partIndex) => {
    const ofPart = (rows: PostingRows) => rows.postings[partIndex]!;
    const kind =
      typeof part.kind === 'string'
        ? Prisma.sql`${slot((rows) => ofPart(rows).kind)}::"LedgerEntryKind"`
        : Prisma.sql`(SELECT kind FROM ${cte(part.kind.cte)})`;
    const description =
      typeof part.description === 'string'
        ? Prisma.sql`${slot((rows) => ofPart(rows).description)}::text`
        : Prisma.sql`(SELECT ${cte(part.description.column)} FROM ${cte(part.description.cte)})::text`;
    const common = Prisma.sql`${slot((rows) => ofPart(rows).postingId)}::uuid, ${kind}, ${slot((rows) => ofPart(rows).payoutId)}::uuid, ${slot((rows) => ofPart(rows).transactionId)}::uuid, ${description}`;
    const merchantEntries = part.merchantMoves.map((move, moveIndex) => {
      const at = { part: partIndex, move: moveIndex };
      const amount = amountAt(shape, at, slot);
      // The balance after this posting: the final one, less what the later postings moved it by.
      const later = movesOn(shape, move.account).filter((other) => other.part > partIndex);
      const after = later.length > 0 ? Prisma.sql`m.balance - ${sumAt(shape, later, slot)}` : Prisma.sql`m.balance`;
      const conditions = [...(names[move.account] === shape.as ? [] : [whenWritten]), ...(several ? [Prisma.sql`${amount} <> 0`] : [])];
      return Prisma.sql`
      SELECT gen_random_uuid(), ${common}, m.id, NULL::"GatewayAccount", ${amount}, ${after}
      FROM ${cte(names[move.account]!)} m ${conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty}`;
    });
    const gatewayEntries = Prisma.sql`
      SELECT gen_random_uuid(), ${common}, NULL::uuid, g.account, g.amount, NULL::bigint
      FROM unnest(${slot((rows) => nonZeroSides(ofPart(rows)).map((side) => side.gateway))}::text[]::"GatewayAccount"[], ${slot((rows) => nonZeroSides(ofPart(rows)).map((side) => String(side.amount)))}::text[]::bigint[]) AS g(account, amount)
      WHERE ${whenWritten}`;
    // A side read by the statement: its own row, written unless its amount is zero (as a given zero side is not).
    const readEntries = readSides(part).map((side, index) => {
      const gateway =
        typeof side.gateway === 'string'
          ? Prisma.sql`${slot((rows) => readSides(ofPart(rows))[index]!.gateway)}::text::"GatewayAccount"`
          : Prisma.sql`(SELECT ${cte(side.gateway.column)} FROM ${cte(side.gateway.cte)})::text::"GatewayAccount"`;
      const amount = isGiven(side.amount) ? Prisma.sql`${slot((rows) => String(readSides(ofPart(rows))[index]!.amount))}::bigint` : amountSql(side.amount);
      return Prisma.sql`
      SELECT gen_random_uuid(), ${common}, NULL::uuid, ${gateway}, ${amount}, NULL::bigint
      WHERE ${whenWritten} AND ${amount} <> 0`;
    });
    return [...merchantEntries, gatewayEntries, ...readEntries];
  });
  return Prisma.sql`
    ${moves.length > 0 ? Prisma.sql`${Prisma.join(moves, ',')},` : Prisma.empty}
    ${cte(`${shape.as}_entries`)} AS (
      INSERT INTO "LedgerEntry" (id, "postingId", kind, "payoutId", "transactionId", description, "accountId", "gatewayAccount", amount, "balanceAfter")
      ${Prisma.join(entries, ' UNION ALL ')})`;
}

function movedCte(name: string, account: MerchantAccountRef, by: Prisma.Sql, index: number, slot: SlotOf, after: string | undefined): Prisma.Sql {
  const named = (rows: PostingRows) => rows.accounts[index] as { organizationId: string; account: AccountName };
  const [from, isAccount] =
    'cte' in account
      ? [Prisma.sql`FROM ${cte(account.cte)} s`, Prisma.sql`a."organizationId" = s."organizationId" AND a.name = s."accountName"`]
      : [
          Prisma.empty,
          Prisma.sql`a."organizationId" = ${slot((rows) => named(rows).organizationId)}::uuid AND a.name = ${slot((rows) => named(rows).account)}::"AccountName"`,
        ];
  const afterCondition = after ? Prisma.sql`AND EXISTS (SELECT 1 FROM ${cte(after)})` : Prisma.empty;
  return Prisma.sql`
    ${cte(name)} AS (
      UPDATE "Account" a SET balance = a.balance + ${by}, "updatedAt" = now() ${from}
      WHERE ${isAccount} AND a.balance + ${by} >= 0 ${afterCondition}
      RETURNING a.id, a.balance)`;
}

/** A merchant account as a posting left it. */
export interface MovedAccount {
  id: string;
  balance: bigint;
}

/** Runs ctesOfPosting alone: per merchant account (in the order given), the account as it moved it, or undefined when it did not move. */
export async function writePosting(tx: DbTransaction, rows: PostingRows): Promise<(MovedAccount | undefined)[]> {
  const names = movedCteNames(rows);
  const moved = names.map((name, index) => Prisma.sql`SELECT ${index}::int AS move, id, balance FROM ${cte(name)}`);
  // Gateway accounts only: the entries CTE runs though nothing selects from it (PostgreSQL runs every data-modifying CTE once).
  const selected =
    moved.length > 0 ? Prisma.join(moved, ' UNION ALL ') : Prisma.sql`SELECT NULL::int AS move, NULL::uuid AS id, NULL::bigint AS balance WHERE false`;
  const found = await tx.$queryRaw<{ move: number; id: string; balance: bigint | string }[]>`
    WITH ${ctesOfPosting(rows)}
    ${selected}`;
  return names.map((_, index) => {
    const row = found.find((candidate) => candidate.move === index);
    return row && { id: row.id, balance: BigInt(row.balance) };
  });
}

export async function merchantAccountExists(tx: Pick<DbTransaction, 'account'>, organizationId: string, account: AccountName): Promise<boolean> {
  return (await tx.account.findUnique({ where: { organizationId_name: { organizationId, name: account } }, select: { id: true } })) !== null;
}

/** The sum of a transaction's entries on one merchant account. */
export async function transactionSumOn(
  tx: Pick<DbTransaction, '$queryRaw'>,
  organizationId: string,
  account: AccountName,
  transactionId: string,
): Promise<bigint> {
  const [row] = await tx.$queryRaw<{ sum: bigint | string }[]>`
    SELECT COALESCE(SUM(e.amount), 0)::bigint AS sum
    FROM "LedgerEntry" e JOIN "Account" a ON a.id = e."accountId"
    WHERE e."transactionId" = ${transactionId}::uuid AND a."organizationId" = ${organizationId}::uuid AND a.name = ${account}::"AccountName"`;
  return BigInt(row?.sum ?? 0);
}

/** `main` first, then `escrow` (the enum's order), as organisations list them everywhere. */
const accountOrder = [{ name: 'asc' as const }];

export async function accountsOf(db: Pick<Db, 'account'>, organizationId: string): Promise<Account[]> {
  return db.account.findMany({ where: { organizationId }, orderBy: accountOrder });
}

/** One account by id, of `organizationId` or of any organisation when it is null. */
export async function findAccount(db: Pick<Db, 'account'>, organizationId: string | null, id: string): Promise<Account | null> {
  return db.account.findFirst({ where: { id, ...(organizationId !== null && { organizationId }) } });
}

export async function merchantAccount(tx: Pick<DbTransaction, 'account'>, organizationId: string, account: AccountName): Promise<Account> {
  return tx.account.findUniqueOrThrow({ where: { organizationId_name: { organizationId, name: account } } });
}

/** Totals over the accounts of `organizationId`, or of every organisation when it is null, in one statement. */
export async function accountTotals(db: Pick<Db, '$queryRaw'>, organizationId: string | null): Promise<AccountStats> {
  const scope = organizationId === null ? Prisma.empty : Prisma.sql`WHERE "organizationId" = ${organizationId}::uuid`;
  const [row] = await db.$queryRaw<{ total: bigint | string; accounts: number; active: number }[]>`
    SELECT COALESCE(SUM(balance), 0)::bigint AS total, COUNT(*)::int AS accounts, (COUNT(*) FILTER (WHERE "isActive"))::int AS active
    FROM "Account" ${scope}`;
  return { totalBalance: BigInt(row?.total ?? 0), accountCount: Number(row?.accounts ?? 0), activeAccountCount: Number(row?.active ?? 0) };
}

/**
 * A page of an account's entries, newest first, and how many it has; with `organizationId`, only
 * when the account is that organisation's (the condition joins the same statements).
 */
export async function entriesPage(
  db: Pick<Db, 'ledgerEntry'>,
  accountId: string,
  organizationId: string | null,
  skip: number,
  take: number,
): Promise<{ entries: LedgerEntry[]; totalCount: number }> {
  const where = { accountId, ...(organizationId !== null && { account: { organizationId } }) };
  const [entries, totalCount] = await Promise.all([
    db.ledgerEntry.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take }),
    db.ledgerEntry.count({ where }),
  ]);
  return { entries, totalCount };
}
