/**
 * The one way money moves: a posting is a balanced set of entries (they sum to zero) over the
 * organisation's accounts (`main`, `escrow`) and the gateway's own (provider clearing per method,
 * fee revenue, adjustments). It runs inside the caller's database transaction, so a state change,
 * its entries and its outbox rows commit together or not at all.
 *
 * The rules live here: a posting balances, its merchant accounts are locked in one order, and a
 * refusal says why. Its SQL is ONE builder (store.ts ctesOfPosting): post() runs it alone, and
 * debitPostingCtes / creditPostingCtes / statementPostingCtes hand it to a caller's single statement
 * (the last for amounts only that statement knows, read from a named column of an earlier CTE), and
 * statementPostingsCtes several postings of one statement over shared merchant accounts.
 *
 * A merchant account's balance moves by a conditional UPDATE (`balance + amount >= 0`), so a
 * debit the balance cannot cover is refused by PostgreSQL itself. Every entry records the balance
 * after it, so `balance` can be checked against the entries. Gateway accounts keep no balance row
 * (see schema.prisma's GatewayAccount).
 */
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.js';
import type { AccountName, GatewayAccount, LedgerEntryKind, PaymentMethod } from '../../generated/prisma/enums.js';
import type { DbTransaction } from '../context.js';
import { DomainError } from '../errors.js';
import { paymentMethodRow } from '../paymentMethods.js';
import {
  ctesOfPosting,
  merchantAccountExists,
  writePosting,
  type Amount,
  type AmountOf,
  type FromCte,
  type GatewayRef,
  type MerchantAccountRef,
  type PostingPart,
  type PostingRows,
  type TextRef,
} from './store.js';

type LedgerSide = { organizationId: string; account: AccountName } | { gateway: GatewayAccount };

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

type MerchantSide = Extract<LedgerSide, { organizationId: string }>;
/** A side of a posting in a caller's statement: the gateway account may be read by it too. */
type StatementSide = LedgerSide | FromCte | { gateway: GatewayRef };

/**
 * A posting in a caller's single statement: a side may be the merchant account named by the row of
 * an earlier CTE of that statement (only as the posting's one merchant movement: it cannot be
 * ordered before the statement runs), and the kind may be that row's "kind".
 */
export interface StatementPosting {
  /** The CTE the caller selects FROM: it has a row iff the posting was written. */
  as: string;
  kind: LedgerEntryKind | FromCte;
  movements: { side: StatementSide; amount: Amount }[];
  transactionId?: string;
  payoutId?: string;
  /** Given, or a column of the one row of an earlier CTE. */
  description: TextRef;
  /** An earlier CTE of the statement: nothing moves unless it has a row. */
  onlyIf?: string;
}

/**
 * Several postings in a caller's single statement, over shared merchant accounts (a refund of a
 * held transaction: escrow -> main, then main -> the provider's clearing account): one statement
 * may update a row only once, so each merchant account moves once, by the sum of its amounts over
 * the postings; each posting is balanced by itself, has its own id and kind, and its entries record
 * the balance after it, as if the postings had been posted one after another in the order given.
 * An entry of a zero amount is not written: a posting whose amounts the statement reads as 0 (one
 * its rows do not call for, such as a release of nothing held) writes nothing.
 */
export interface StatementPostings {
  /** The CTE the caller selects FROM: it has a row iff the postings were written. */
  as: string;
  postings: Omit<StatementPosting, 'as' | 'onlyIf'>[];
  /** An earlier CTE of the statement: nothing moves unless it has a row. */
  onlyIf?: string;
}

/**
 * The postings' rows for the store: each checked balanced, each merchant account once per
 * posting, the statement's merchant accounts (each once) in lock order.
 */
function postingRowsOf(statement: StatementPostings, postingIdOf: (index: number) => string): PostingRows {
  if (statement.postings.length === 0) throw new Error('a statement posts at least one posting');
  const named = new Map<string, MerchantSide>();
  const fromCte = new Set<string>();
  for (const posting of statement.postings) {
    const unbalanced = unbalancedBy(posting.movements.map((movement) => movement.amount));
    // A programming error, never a user's: an unbalanced posting must not reach the database.
    if (unbalanced) throw new Error(`unbalanced ${typeof posting.kind === 'string' ? posting.kind : 'statement'} posting: entries sum to ${unbalanced}`);
    const merchant = posting.movements.map(({ side }) => side).filter((side): side is MerchantSide | FromCte => !('gateway' in side));
    const keys = merchant.map((side) => ('cte' in side ? `cte:${side.cte}` : orderKey(side)));
    if (new Set(keys).size !== keys.length) throw new Error('a posting moves each merchant account once');
    for (const side of merchant) {
      if ('cte' in side) fromCte.add(side.cte);
      else named.set(orderKey(side), side);
    }
  }
  if (fromCte.size > 0 && fromCte.size + named.size > 1) throw new Error('an account named by a CTE must be its posting’s only merchant account');
  // Always lock merchant accounts in one order (organisation, then name): two postings over the
  // same accounts can then never deadlock.
  const accounts: MerchantAccountRef[] = [...[...fromCte].map((name) => ({ cte: name })), ...[...named.values()].sort(byAccountOrder)];
  const indexOf = (side: MerchantSide | FromCte): number =>
    accounts.findIndex((account) =>
      'cte' in side ? 'cte' in account && account.cte === side.cte : !('cte' in account) && orderKey(account) === orderKey(side),
    );
  const postings = statement.postings.map((posting, index): PostingPart => {
    const gatewaySides: PostingPart['gatewaySides'] = [];
    const merchantMoves: PostingPart['merchantMoves'] = [];
    for (const { side, amount } of posting.movements) {
      if ('gateway' in side) gatewaySides.push({ gateway: side.gateway, amount });
      else merchantMoves.push({ account: indexOf(side), amount });
    }
    return {
      postingId: postingIdOf(index),
      kind: posting.kind,
      transactionId: posting.transactionId ?? null,
      payoutId: posting.payoutId ?? null,
      description: posting.description,
      merchantMoves: merchantMoves.sort((a, b) => a.account - b.account),
      gatewaySides,
    };
  });
  return { as: statement.as, accounts, postings, onlyIf: statement.onlyIf };
}

/** One posting of a statement: the statement's only one. */
const alone = ({ as, onlyIf, ...posting }: StatementPosting): StatementPostings => ({ as, onlyIf, postings: [posting] });

/**
 * What a posting's amounts sum to when it is not zero: the given amounts' sum, or a column of an
 * earlier CTE whose signs do not cancel (a read amount is the same value wherever it is read, so
 * the posting balances for every row the statement reads iff each column's signs cancel).
 */
function unbalancedBy(amounts: Amount[]): string | null {
  const given = amounts.reduce<bigint>((total, amount) => (typeof amount === 'bigint' ? total + amount : total), 0n);
  if (given !== 0n) return String(given);
  const signs = new Map<string, number>();
  for (const amount of amounts.filter((candidate): candidate is AmountOf => typeof candidate !== 'bigint')) {
    for (const { column, sign } of amount.terms) signs.set(`${amount.cte}.${column}`, (signs.get(`${amount.cte}.${column}`) ?? 0) + sign);
  }
  const uncancelled = [...signs].filter(([, sign]) => sign !== 0).map(([column, sign]) => `${sign} x ${column}`);
  return uncancelled.length > 0 ? uncancelled.join(' + ') : null;
}

const orderKey = (side: MerchantSide): string => `${side.organizationId}:${side.account}`;
const byAccountOrder = (a: MerchantSide, b: MerchantSide): number => orderKey(a).localeCompare(orderKey(b));

/**
 * A posting as CTEs of the caller's single statement (the one builder; see store.ts ctesOfPosting
 * for what they do): for a statement whose amounts, gateway account or merchant account are only
 * known to it (read from rows it locked), each named by a column of an earlier CTE. Checked
 * balanced here, like post(); CTE `as` has a row iff the posting was written.
 */
export function statementPostingCtes(posting: StatementPosting): Prisma.Sql {
  return postingCtes(posting);
}

/**
 * Several postings as CTEs of the caller's single statement (see StatementPostings): each merchant
 * account moves once, by the sum of its amounts over them. Each is checked balanced here, like
 * post(); CTE `as` has a row iff they were written.
 */
export function statementPostingsCtes(statement: StatementPostings): Prisma.Sql {
  return ctesOfPosting(postingRowsOf(statement, () => randomUUID()));
}

function postingCtes(posting: StatementPosting): Prisma.Sql {
  return ctesOfPosting(postingRowsOf(alone(posting), () => randomUUID()));
}

/**
 * Writes one balanced posting. Throws `insufficient_balance` (and so rolls the caller's
 * transaction back) when a debit would take a merchant account below zero.
 *
 * Every merchant account moves in the ONE statement that writes the entries: their row locks (the
 * hot one: every payment of a merchant credits `main`) are held for one statement and the COMMIT,
 * not for extra round trips. Only when it wrote nothing is a second statement run, to say why.
 */
export async function post(tx: DbTransaction, posting: Posting): Promise<{ postingId: string; balances: PostedBalance[] }> {
  const postingId = randomUUID();
  const movements = posting.movements.filter((movement) => movement.amount !== 0n);
  if (movements.length === 0) return { postingId, balances: [] };
  const rows = postingRowsOf(alone({ ...posting, as: 'moved', movements, description: posting.description ?? '' }), () => postingId);
  // post() names every merchant account (no CTE of a caller's statement names one here).
  const accounts = rows.accounts as MerchantSide[];
  const moved = await writePosting(tx, rows);
  const refused = accounts.findIndex((_, index) => !moved[index]);
  if (refused >= 0) throw await whyNotMoved(tx, accounts[refused]!);
  const balances = accounts.map(({ organizationId, account }, index) => ({
    accountId: moved[index]!.id,
    organizationId,
    account,
    balance: moved[index]!.balance,
  }));
  return { postingId, balances };
}

/** A merchant account that did not move: missing, or the debit would take it below zero. */
async function whyNotMoved(tx: DbTransaction, side: MerchantSide): Promise<DomainError> {
  return new DomainError((await merchantAccountExists(tx, side.organizationId, side.account)) ? 'insufficient_balance' : 'merchant_account_unavailable');
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
  if (posting.credit < 0n) throw new Error('creditPostingCtes only credits: a debit may be refused and needs post()');
  const source = { cte: posting.source };
  return postingCtes({
    as: 'credited',
    kind: source,
    transactionId: posting.transactionId,
    description: posting.description,
    movements: [{ side: source, amount: posting.credit }, ...posting.gatewaySides.map(({ gateway, amount }) => ({ side: { gateway }, amount }))],
  });
}

/**
 * A posting that DEBITS one merchant account, as CTEs of the caller's single statement: `debited`
 * (the account, moved only when its balance covers the debit: PostgreSQL refuses the rest, as in
 * post()) and its entries (written only when it moved). The caller's own rows in the same
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
  if (posting.debit <= 0n) throw new Error('debitPostingCtes only debits a positive amount');
  return postingCtes({
    as: 'debited',
    kind: posting.kind,
    ...posting.about,
    description: posting.description,
    movements: [
      { side: { organizationId: posting.organizationId, account: posting.account }, amount: -posting.debit },
      ...posting.gatewaySides.map(({ gateway, amount }) => ({ side: { gateway }, amount })),
    ],
    onlyIf: posting.onlyIf,
  });
}
