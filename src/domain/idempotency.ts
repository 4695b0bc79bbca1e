/**
 * Idempotency-Key: a retried request gets the first answer instead of being executed again.
 * An operation opts in by running its effects through `runIdempotently`; every surface (REST v2,
 * REST v1, GraphQL) then behaves the same, because the rule lives here and not in an adapter.
 *
 * - The key row is written in the SAME database transaction as the operation's effects, and
 *   PostgreSQL's unique (organisation, key) decides which request owns it. A committed change
 *   therefore always has its completed key and a rolled-back one has none: a crash between
 *   commit and answer leaves nothing to "take over", and the retry replays the committed answer.
 * - Same key + same request: the stored answer is replayed (`replayed: true`). Same key + another
 *   request: 422. Same key while the first is still running: 409 at once (a transaction-scoped
 *   advisory lock, held until the first commits or rolls back).
 * - The fingerprint is the operation's name and its normalised input, not the surface: a v1, a v2
 *   and a GraphQL call of one operation with one key are the same request.
 * - Refusals are answers too: a 4xx the operation raises is stored (in its own statement, since
 *   the operation's transaction rolled back) and replayed. 409, 429 and 5xx are transient and
 *   not stored, so the client may retry them with the same key.
 * - Keys are per organisation and live 24 hours (purged hourly by the process).
 * - An operation that calls an outside party (refund, payout) uses `runIdempotentlyTwoPhase`: the
 *   key row is written `in_progress` with the intent and its debit BEFORE the call, and completed
 *   by the transaction that settles the intent (the request's own, or a reconciler's through
 *   `settleIntent`). A retry meanwhile gets 409; nothing is sent to the outside party twice.
 */
import { createHash } from 'node:crypto';
import type { IdempotencyKey, Prisma } from '../generated/prisma/client.js';
import type { DbTransaction, GatewayContext } from './context.js';
import type { Db } from './ports.js';
import { DomainError, isErrorCode } from './errors.js';
import { settleDurably } from './providerFlow.js';
import { inTransaction } from './afterCommit.js';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Visible ASCII, 1 to 255 characters: room for a UUID or an order reference, bounded for the index. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyScope {
  organizationId: string;
  /** The client's Idempotency-Key, or undefined to run without idempotency. */
  key: string | undefined;
  /** The operation's name: part of what makes two requests "the same". */
  operation: string;
  /** The operation's normalised input (absent and null fields are equivalent). */
  input: unknown;
  /**
   * false for a key the gateway derived for a client that retries blindly (blindRetries.ts): a
   * refusal before anything moved (a 4xx such as insufficient balance) is not kept, so the same
   * request after the merchant fixed its cause runs again. Default true (a client's own key).
   */
  keepRefusals?: boolean;
}

export interface IdempotentOutcome<T> {
  value: T;
  /** True when the value is the stored answer of an earlier request with the same key. */
  replayed: boolean;
}

/** What the key row keeps: the operation's value, or the refusal it answered with. */
type StoredAnswer = { value: unknown } | { error: { code: string; message: string } };

/** A committed row found inside the transaction: leave it (rolling back) and replay the row. */
class AlreadyAnswered extends Error {
  constructor(readonly row: IdempotencyKey) {
    super('idempotency key already answered');
  }
}

/**
 * Runs `work` in one database transaction together with the key row (when a key is given), or
 * replays the answer stored under that key.
 */
export async function runIdempotently<T>(
  ctx: GatewayContext,
  scope: IdempotencyScope,
  work: (tx: DbTransaction) => Promise<T>,
  options: { withoutKey?: 'transaction' | 'one-statement' } = {},
): Promise<IdempotentOutcome<T>> {
  if (scope.key === undefined) {
    // 'one-statement': the work writes once (its reads before are checks), so without a key row
    // to commit with it needs no interactive transaction: its statement is atomic by itself.
    const value = options.withoutKey === 'one-statement' ? await work(ctx.db) : await inTransaction(ctx, work);
    return { value, replayed: false };
  }
  if (!KEY_PATTERN.test(scope.key)) throw new DomainError('invalid_idempotency_key');
  const key = { organizationId: scope.organizationId, key: scope.key };
  const requestHash = fingerprintOf(scope.operation, scope.input);
  const outcome = await runClaimed<T, T>(ctx, key, requestHash, work, (result) => keyRow(ctx, key, requestHash, 200, { value: result }), scope.keepRefusals);
  return 'replay' in outcome ? outcome.replay : { value: outcome.ran, replayed: false };
}

type IdempotencyKeyRow = ReturnType<typeof keyRow> | ReturnType<typeof inProgressKeyRow>;

/**
 * The claim every idempotent operation shares: replay the answer stored under the key, or run
 * `work` in ONE database transaction that also writes the key row `rowFor(result)` (completed
 * for one-phase operations, in_progress with the intent for two-phase ones).
 */
async function runClaimed<T, Answer>(
  ctx: GatewayContext,
  key: { organizationId: string; key: string },
  requestHash: string,
  work: (tx: DbTransaction) => Promise<T>,
  rowFor: (result: T) => IdempotencyKeyRow,
  keepRefusals = true,
): Promise<{ ran: T } | { replay: IdempotentOutcome<Answer> }> {
  // The common retry: the first request committed long ago. One read, no transaction.
  const stored = await findLiveKey(ctx, ctx.db, key);
  if (stored) return { replay: replay<Answer>(stored, requestHash) };
  try {
    const ran = await inTransaction(ctx, async (tx) => {
      await claim(ctx, tx, key);
      const result = await work(tx);
      await tx.idempotencyKey.create({ data: rowFor(result) });
      return result;
    });
    return { ran };
  } catch (error) {
    if (error instanceof AlreadyAnswered) return { replay: replay<Answer>(error.row, requestHash) };
    if (isUniqueViolation(error)) {
      // Another request with this key committed first: its answer is the answer.
      const winner = await findLiveKey(ctx, ctx.db, key);
      if (winner) return { replay: replay<Answer>(winner, requestHash) };
    }
    if (keepRefusals && error instanceof DomainError && isFinalRefusal(error)) await storeRefusal(ctx, key, requestHash, error);
    throw error;
  }
}

/**
 * How phase 2 of a two-phase operation ends (see runIdempotentlyTwoPhase). Whatever it is, it
 * commits: a refusal here is an answer the settle step wrote down (a failed refund reversed and
 * recorded), not a rollback.
 * - `answer`: the operation's value; the key is completed with it, unless `open` says the value is
 *   only the state so far of an intent whose call is still open (a payout `pending` with the
 *   provider): the key then stays `in_progress`, a retry reads the intent's current state
 *   (`current`), and whoever settles the intent later completes the key.
 * - `refusal`: the request answers with this error; a final 4xx is kept under the key, a 5xx
 *   (or 409, 429) is not (the key row is deleted, so the client may retry with it), unless
 *   `final` says the 5xx is the recorded outcome itself (a payout the provider refused is
 *   `failed` for good: a retry with the key replays that answer rather than sending a new one).
 * - `unsettled`: the outside party has not said what became of the call (a timeout); the request
 *   answers with this error and the key stays `in_progress`, bound to the intent, until whoever
 *   settles the intent later (a reconciler, through `settleIntent`) completes it.
 */
export type Settlement<T> = { answer: T; open?: boolean } | { refusal: DomainError; final?: boolean } | { unsettled: DomainError };

export interface TwoPhaseSteps<Intent, Reply, T> {
  /**
   * Phase 1: write the intent row and its effects (the debit). Without a key on `ctx.db` (one
   * statement is atomic by itself); with one in the key's database transaction, so that the key
   * row commits with them. Either way the same code: a statement that fails there aborts the
   * transaction, so it refuses by throwing, never by trying something else after.
   */
  record(db: Db | DbTransaction): Promise<Intent>;
  /**
   * A stable name of the intent (e.g. `refundTransaction:<refund id>:<attempt>`), kept on the
   * `in_progress` key so that a later settlement of the intent finds and completes the key.
   */
  intentName(intent: Intent): string;
  /** Between the phases, outside any transaction: the outside call (a provider). Should not throw. */
  call(intent: Intent): Promise<Reply>;
  /** Phase 2: settle the intent with the reply; on `ctx.db` without a key, in the transaction that completes the key with one. */
  settle(db: Db | DbTransaction, intent: Intent, reply: Reply): Promise<Settlement<T>>;
  /**
   * What the intent named `intentName` is now, for a retry with the key while the call is still
   * open (being resumed in the background, or awaiting its answer): the retry answers that instead
   * of 409 for as long as the call is open. Null: unknown intent (the retry gets 409).
   */
  current?(intentName: string): Promise<Settlement<T> | null>;
}

/**
 * An operation that calls an outside party (a refund, a payout): the intent, its effects and the
 * key row (`in_progress`) commit together BEFORE the call; the call runs outside any transaction;
 * then a second transaction settles the intent and completes the key. A retry that finds the key
 * `in_progress` gets 409 and nothing is called again; a crash between the phases leaves the
 * intent (and its key) for a reconciler to settle with `settleIntent`.
 *
 * Phase 1 behaves exactly like runIdempotently (replays, 422, 409, refusals kept). Without a key,
 * the same steps run on `ctx.db`, with no key row.
 */
export async function runIdempotentlyTwoPhase<Intent, Reply, T>(
  ctx: GatewayContext,
  scope: IdempotencyScope,
  steps: TwoPhaseSteps<Intent, Reply, T>,
): Promise<IdempotentOutcome<T>> {
  if (scope.key === undefined) {
    const intent = await steps.record(ctx.db);
    return callAndSettle(ctx, steps, intent, null);
  }
  if (!KEY_PATTERN.test(scope.key)) throw new DomainError('invalid_idempotency_key');
  const key = { organizationId: scope.organizationId, key: scope.key };
  const requestHash = fingerprintOf(scope.operation, scope.input);
  let outcome: Awaited<ReturnType<typeof runClaimed<Intent, T>>>;
  try {
    outcome = await runClaimed<Intent, T>(
      ctx,
      key,
      requestHash,
      (tx) => steps.record(tx),
      (recorded) => inProgressKeyRow(ctx, key, requestHash, steps.intentName(recorded)),
      scope.keepRefusals,
    );
  } catch (error) {
    const current = error instanceof DomainError && error.code === 'idempotency_key_in_use' ? await currentOfOpenIntent(ctx, key, requestHash, steps) : null;
    if (current) return current;
    throw error;
  }
  if ('replay' in outcome) return outcome.replay;
  return callAndSettle(ctx, steps, outcome.ran, key);
}

/**
 * A retry with a key whose intent is recorded and its call still open: what the intent is now
 * (a payout `pending`, a refund unconfirmed), replayed, instead of 409 "in use" for as long as the
 * call is resumed. Null when the key is held by a request still recording (a true concurrent
 * request: 409), or the operation cannot say.
 */
async function currentOfOpenIntent<Intent, Reply, T>(
  ctx: GatewayContext,
  key: { organizationId: string; key: string },
  requestHash: string,
  steps: TwoPhaseSteps<Intent, Reply, T>,
): Promise<IdempotentOutcome<T> | null> {
  if (!steps.current) return null;
  const row = await findLiveKey(ctx, ctx.db, key);
  if (row?.state !== 'in_progress' || row.requestHash !== requestHash || !row.responseBody) return null;
  let intentName: unknown;
  try {
    intentName = (JSON.parse(row.responseBody) as { intent?: unknown }).intent;
  } catch {
    return null;
  }
  if (typeof intentName !== 'string') return null;
  const settlement = await steps.current(intentName);
  if (!settlement) return null;
  if ('answer' in settlement) return { value: settlement.answer, replayed: true };
  throw 'refusal' in settlement ? settlement.refusal : settlement.unsettled;
}

/** The call and phase 2 of runIdempotentlyTwoPhase; with a key, the settlement completes it in the same transaction. */
async function callAndSettle<Intent, Reply, T>(
  ctx: GatewayContext,
  steps: TwoPhaseSteps<Intent, Reply, T>,
  intent: Intent,
  key: { organizationId: string; key: string } | null,
): Promise<IdempotentOutcome<T>> {
  const reply = await steps.call(intent);
  // Settling is conditional on the intent still being open, so a try that failed on a deadlock
  // or a dropped connection (maybe after committing) is simply run again (providerFlow.ts).
  const intentName = steps.intentName(intent);
  const settlement = await settleDurably(ctx, { intent: intentName }, () =>
    key
      ? inTransaction(ctx, async (tx) => {
          const settled = await steps.settle(tx, intent, reply);
          await finishKeys(ctx, tx, { ...key, state: 'in_progress', responseBody: intentMarker(intentName) }, settled);
          return settled;
        })
      : steps.settle(ctx.db, intent, reply),
  );
  return { value: outcomeOf(settlement), replayed: false };
}

/**
 * Phase 2 run by someone other than the request (a reconciler after a timeout or a crash):
 * settles the intent in one transaction and completes (or frees) any key still bound to it.
 * Returns the answer, or throws the settlement's refusal.
 */
export async function settleIntent<T>(
  ctx: GatewayContext,
  organizationId: string,
  intentName: string,
  settle: (tx: DbTransaction) => Promise<Settlement<T>>,
): Promise<T> {
  const settlement = await settleDurably(ctx, { intent: intentName }, () =>
    inTransaction(ctx, async (tx) => {
      const settled = await settle(tx);
      await finishKeys(ctx, tx, { organizationId, state: 'in_progress', responseBody: intentMarker(intentName) }, settled);
      return settled;
    }),
  );
  return outcomeOf(settlement);
}

function outcomeOf<T>(settlement: Settlement<T>): T {
  if ('answer' in settlement) return settlement.answer;
  throw 'refusal' in settlement ? settlement.refusal : settlement.unsettled;
}

/** What an `in_progress` key holds instead of an answer: the intent it waits for. */
const intentMarker = (intentName: string): string => JSON.stringify({ intent: intentName });

/** Completes the keys bound to a settled intent (conditionally: only while still `in_progress`). */
async function finishKeys(ctx: GatewayContext, tx: DbTransaction, where: Prisma.IdempotencyKeyWhereInput, settlement: Settlement<unknown>): Promise<void> {
  if ('unsettled' in settlement || ('answer' in settlement && settlement.open)) return;
  if ('refusal' in settlement && !settlement.final && !isFinalRefusal(settlement.refusal)) {
    await tx.idempotencyKey.deleteMany({ where });
    return;
  }
  const [status, answer]: [number, StoredAnswer] =
    'answer' in settlement
      ? [200, { value: settlement.answer }]
      : [settlement.refusal.status, { error: { code: settlement.refusal.code, message: settlement.refusal.message } }];
  await tx.idempotencyKey.updateMany({
    where,
    data: { state: 'completed', responseStatus: status, responseBody: encode(answer), expiresAt: new Date(ctx.clock.now().getTime() + IDEMPOTENCY_TTL_MS) },
  });
}

function inProgressKeyRow(ctx: GatewayContext, key: { organizationId: string; key: string }, requestHash: string, intentName: string) {
  const now = ctx.clock.now();
  return {
    ...key,
    requestHash,
    state: 'in_progress' as const,
    responseStatus: null,
    responseBody: intentMarker(intentName),
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  };
}

/**
 * Inside the operation's transaction: refuses at once (409) while another request holds the key,
 * and steps aside (AlreadyAnswered) if one committed since the read above.
 */
async function claim(ctx: GatewayContext, tx: DbTransaction, key: { organizationId: string; key: string }): Promise<void> {
  // Released by PostgreSQL at commit or rollback, so a crash can never leave it held.
  const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`
    SELECT pg_try_advisory_xact_lock(hashtextextended(${`${key.organizationId}:${key.key}`}, 0)) AS locked`;
  if (!lock?.locked) throw new DomainError('idempotency_key_in_use');
  const committed = await tx.idempotencyKey.findUnique({ where: { organizationId_key: key } });
  if (!committed) return;
  if (committed.expiresAt > ctx.clock.now()) throw new AlreadyAnswered(committed);
  await tx.idempotencyKey.delete({ where: { organizationId_key: key } });
}

/** The stored answer, as the operation first gave it; another request under this key is a 422. */
function replay<T>(row: IdempotencyKey, requestHash: string): IdempotentOutcome<T> {
  if (row.requestHash !== requestHash) throw new DomainError('idempotency_key_reused');
  // A key still `in_progress` belongs to an operation with an outside call under way (a payout
  // sent, its answer not yet settled). It is never run again: the client waits and retries.
  if (row.state !== 'completed' || row.responseBody === null) throw new DomainError('idempotency_key_in_use');
  const answer = decode(row.responseBody) as StoredAnswer;
  if ('error' in answer) {
    const code = isErrorCode(answer.error.code) ? answer.error.code : 'internal';
    throw new DomainError(code, '', { message: answer.error.message, replayed: true });
  }
  return { value: answer.value as T, replayed: true };
}

/**
 * The newest of `keys` (an organisation's) created after `since`, with when it was answered
 * (blindRetries.ts: a blind retry meets the key its first request made).
 */
export async function newestKeyAmong(ctx: GatewayContext, organizationId: string, keys: string[], since: Date) {
  const [newest] = await ctx.db.idempotencyKey.findMany({
    where: { organizationId, key: { in: keys }, createdAt: { gt: since } },
    orderBy: { createdAt: 'desc' },
    take: 1,
    select: { key: true, state: true, createdAt: true, expiresAt: true },
  });
  return newest ?? null;
}

async function findLiveKey(ctx: GatewayContext, db: Pick<DbTransaction, 'idempotencyKey'>, key: { organizationId: string; key: string }) {
  const row = await db.idempotencyKey.findUnique({ where: { organizationId_key: key } });
  return row && row.expiresAt > ctx.clock.now() ? row : null;
}

/**
 * A refusal has no effects to commit with, so its row is written on its own. If a concurrent
 * request with the key committed first, its row stays (ON CONFLICT DO NOTHING semantics).
 */
async function storeRefusal(ctx: GatewayContext, key: { organizationId: string; key: string }, requestHash: string, error: DomainError): Promise<void> {
  const row = keyRow(ctx, key, requestHash, error.status, { error: { code: error.code, message: error.message } });
  await ctx.db.idempotencyKey.createMany({ data: [row], skipDuplicates: true }).catch((failure: unknown) => {
    ctx.log.warn({ err: failure }, 'could not store an idempotent refusal; a retry will run the request again');
  });
}

function keyRow(ctx: GatewayContext, key: { organizationId: string; key: string }, requestHash: string, status: number, answer: StoredAnswer) {
  const now = ctx.clock.now();
  return {
    ...key,
    requestHash,
    state: 'completed' as const,
    responseStatus: status,
    responseBody: encode(answer),
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  };
}

/** 4xx answers are final; 409 (in use) and 429 (rate limit) say "try again", so are not kept. */
const isFinalRefusal = (error: DomainError): boolean => error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 429;

const isUniqueViolation = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'P2002';

/**
 * When a completed key was answered: every completion (keyRow, finishKeys) sets its 24 hours from
 * the answer, so the answer's time is read back from them. Null while the key is still in progress.
 */
export const answeredAtOf = (row: Pick<IdempotencyKey, 'state' | 'expiresAt'>): Date | null =>
  row.state === 'completed' ? new Date(row.expiresAt.getTime() - IDEMPOTENCY_TTL_MS) : null;

/** Drops keys past their 24 hours; run periodically so the table stays bounded. */
export async function purgeExpiredIdempotencyKeys(ctx: GatewayContext): Promise<number> {
  const { count } = await ctx.db.idempotencyKey.deleteMany({ where: { expiresAt: { lt: ctx.clock.now() } } });
  return count;
}

/** The request's identity: the operation and its input, whatever surface it came through. */
function fingerprintOf(operation: string, input: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(input)}`)
    .digest('hex');
}

/**
 * JSON with sorted keys and without absent (undefined or null) fields, so the same request sent
 * with its keys in another order, or by a surface that says null where another omits, matches.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'bigint') return value.toString();
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .filter((name) => (value as Record<string, unknown>)[name] !== undefined && (value as Record<string, unknown>)[name] !== null)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Stored answers are domain values (records with bigint amounts and dates), so that each surface
 * renders a replay in its own shape. JSON tags the two types JSON lacks.
 */
function encode(answer: StoredAnswer): string {
  return JSON.stringify(answer, function (this: Record<string, unknown>, name, value) {
    const original = this[name];
    if (typeof original === 'bigint') return { $bigint: original.toString() };
    if (original instanceof Date) return { $date: original.toISOString() };
    return value;
  });
}

function decode(text: string): unknown {
  return JSON.parse(text, (_name, value) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      if (typeof value.$bigint === 'string' && Object.keys(value).length === 1) return BigInt(value.$bigint);
      if (typeof value.$date === 'string' && Object.keys(value).length === 1) return new Date(value.$date);
    }
    return value;
  });
}
