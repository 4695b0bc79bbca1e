/**
 * Ports: the interfaces the core needs from the outside world, implemented in src/infra.
 *
 * Storage is Prisma's typed client (`Db`): operations use it but never construct it, so the
 * same operations run on PostgreSQL and on embedded PGlite through driver adapters.
 *
 * Coordination (rate limits, scheduling, cache invalidation) comes from Redis across instances, or
 * from an in-process implementation for the single-instance embedded default. Correctness of money
 * never rests on these: PostgreSQL enforces it (including "one payout at a time", a lease row). They
 * make the common case fast and fair (rate limits, retries on time, fresh caches).
 */
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { PaymentMethod } from '../generated/prisma/enums.js';

export type Db = PrismaClient;
/** The same client inside one database transaction (what `db.$transaction(work)` hands `work`). */
export type DbTransaction = Prisma.TransactionClient;

export interface Clock {
  now(): Date;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The configured maximum for the window. */
  limit: number;
  /** Requests still allowed in the current window (0 when refused). */
  remaining: number;
  /** Milliseconds until a refused caller may try again (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the window has fully slid past the oldest counted request. */
  resetMs: number;
  /**
   * Decided by this instance alone because the shared coordinator (Redis) could not be asked: its
   * own exact window, the same limit per instance (redis/coordination.ts).
   */
  local?: true;
}

/** A sliding window's bound: at most `max` hits per `windowMs`. */
export interface RateLimitRule {
  max: number;
  windowMs: number;
}

export interface RateLimiter {
  /**
   * Counts one hit for `key` in a sliding window and says whether it is allowed: by `rule` when
   * given (sign-in throttling: its own, far smaller budget), else by the configured request limit.
   */
  hit(key: string, rule?: RateLimitRule): Promise<RateLimitDecision>;
}

interface ScheduledJob {
  /** Stable id; scheduling the same id again replaces its due time (no duplicates). */
  id: string;
  /** Epoch milliseconds at which the job becomes due. */
  dueAt: number;
}

interface Scheduler {
  /** Schedules (or reschedules) a job by id. */
  schedule(job: ScheduledJob): Promise<void>;
  /** Cancels a job; a no-op when absent. */
  cancel(id: string): Promise<void>;
  /**
   * Atomically claims up to `max` jobs whose dueAt <= now: a claimed job is removed so that
   * two instances never both claim it. Ordered by due time.
   */
  claimDue(now: number, max: number): Promise<string[]>;
}

/** Sent to listeners when messages may have been missed (a reconnect): drop every cached fact. */
export const INVALIDATE_ALL = '*';

/**
 * Tells every instance that cached facts are stale (a key revoked, an organisation changed).
 * Delivery is best effort: caches also expire, so a lost message costs bounded staleness only.
 */
export interface InvalidationBus {
  /** Sends `message` to the other instances' subscribers (best effort; may reject when down). */
  publish(message: string): Promise<void>;
  /** Calls `listener` for each message published by any instance. */
  subscribe(listener: (message: string) => void): void;
  /**
   * True while this instance is known to receive what any instance publishes (its subscription
   * confirmed live within a short bound). A cache must not answer from memory while this is false.
   * Absent: always receiving (in-process, one instance).
   */
  receiving?(): boolean;
}

/**
 * Live updates (GraphQL subscriptions): status changes told to every instance, whose subscribers
 * are then told in turn (domain/liveUpdates). Best effort and at most once: a message is published
 * after its change committed, and one published while an instance's subscription is down, or lost
 * in a crash between the commit and the publish, is never seen there. Webhooks (the outbox) remain
 * the durable channel; live updates are for screens that want to be told at once.
 */
interface LiveEventBus {
  /**
   * Sends `message` to every instance's listeners, this one's included (best effort; may reject
   * when down). While no instance listens it may send nothing: Redis stops publishing until an
   * instance announces it subscribed, so a change in the milliseconds before that is not told.
   */
  publish(message: string): Promise<void>;
  /**
   * Calls `listener` for each message published by any instance. Resolves once receiving (the
   * Redis subscription confirmed), so a change committed after that is not missed.
   */
  subscribe(listener: (message: string) => void): Promise<void>;
}

/** Readiness probe for a coordinator (Redis reachable, or always true in-process). */
interface CoordinatorHealth {
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface Coordination {
  rateLimiter: RateLimiter;
  scheduler: Scheduler;
  invalidations: InvalidationBus;
  liveEvents: LiveEventBus;
  health: CoordinatorHealth;
  /** 'redis' or 'local': logged at start so operators know if it is multi-instance safe. */
  kind: 'redis' | 'local';
}

/**
 * A wallet provider (Wave, Orange Money), one interface for every method. Real providers are HTTP
 * clients of the wallet operators; here the sandbox (src/infra/providers/sandbox.ts) decides the
 * outcome from the phone number, like test cards. Every call carries our own `reference` so the
 * provider can de-duplicate a retried call and we can ask it later what became of one.
 */
export interface ProviderRequest {
  method: PaymentMethod;
  /** The customer's or recipient's wallet, international format. */
  phone: string;
  /** XOF. */
  amount: bigint;
  /** Our id for the operation (transaction, refund or payout id): the provider's idempotency key. */
  reference: string;
  /**
   * Aborted when the gateway stops waiting (the provider flow's deadline): a provider stops its
   * HTTP call. The call may still have reached the wallet, so the outcome stays "not known yet".
   */
  signal?: AbortSignal;
  /**
   * Collection with a provider that takes the customer to its own page (Wave's checkout session):
   * where it sends the customer back, the gateway's own return pages, which settle the attempt
   * through the provider flow and then send the customer on to the merchant's success_url / error_url.
   */
  returnUrls?: { success: string; error: string };
  /** Refund only: the provider's own reference of the payment refunded (its session or transaction id). */
  paymentReference?: string;
  /** Payout only: the recipient's name, for providers that show or check it. */
  recipientName?: string;
}

export interface ProviderAnswer {
  /** `pending`: the provider has not settled it (the customer never confirmed, or it timed out). */
  status: 'succeeded' | 'failed' | 'pending';
  /** The provider's own id for the operation ('' when it gave none). */
  providerReference: string;
  /** Why it failed, in the provider's words (operator-visible). */
  reason?: string;
  /**
   * With `pending`, from a collection: the provider's page the customer must be sent to (Wave's
   * launch URL). The attempt stays open; its outcome comes by notification or status question.
   */
  redirectUrl?: string;
  /**
   * With `failed`: the provider could not take the call at all (unreachable, or it refused to
   * serve: rate limited), so nothing was done. A payout answers the spec's 503 (use the other
   * method) instead of the 500 of a refusal.
   */
  unavailable?: boolean;
}

/** What the provider knows of an earlier call, asked by our reference (reconciliation). */
export interface ProviderStatusAnswer {
  /**
   * `not_found`: the provider never received a call with this reference. `processing`: it has it
   * and is still at work (a checkout session the customer has not finished, a payout under way):
   * never final, the call stays open.
   */
  status: 'succeeded' | 'failed' | 'pending' | 'processing' | 'not_found';
  providerReference: string;
  reason?: string;
}

export interface PaymentProvider {
  /** Collects a payment from the customer's wallet (the checkout). */
  collect(request: ProviderRequest): Promise<ProviderAnswer>;
  /**
   * What became of the payment request sent with `reference` (after a crash between the call and
   * recording its answer): asks, never collects again. `openedAt`: when the attempt was recorded,
   * for a provider that keeps no record of a request until the customer acts (Orange Money's QR
   * code): its age tells "still payable" (processing) from "expired unpaid" (pending).
   */
  collectStatus(reference: string, method?: PaymentMethod, openedAt?: Date): Promise<ProviderStatusAnswer>;
  /** Returns a collected payment to the wallet it came from. */
  refund(request: ProviderRequest): Promise<ProviderAnswer>;
  /**
   * What became of the refund sent with `reference` (after a timeout or a crash): asks, never
   * sends. A reconciler calls it instead of sending the refund again. `paymentReference`: the
   * provider's reference of the payment refunded (a provider that files refunds under it).
   */
  refundStatus(reference: string, method?: PaymentMethod, paymentReference?: string): Promise<ProviderStatusAnswer>;
  /** Sends money from the gateway to a recipient's wallet (a payout). */
  payout(request: ProviderRequest): Promise<ProviderAnswer>;
  /**
   * What became of the payout sent with `reference` (after a timeout or a crash): asks, never
   * sends. The payout reconciler calls it instead of sending the payout again.
   */
  payoutStatus(reference: string, method?: PaymentMethod): Promise<ProviderStatusAnswer>;
  /**
   * Real providers that call back: the notification's events, after verifying its signature over
   * the raw bytes (throws NotificationRejected when it is not the provider's). Absent: none.
   */
  parseNotification?(input: InboundNotification): ProviderNotification[];
  /** The provider's own records for a period (reconciliation). Absent: nothing to compare with. */
  listRecords?(range: { from: Date; to: Date; signal?: AbortSignal }): Promise<ProviderRecord[]>;
}

/**
 * A provider that can close a collection the customer left on its page (Wave: expires the checkout
 * session), so the customer may pay another way. Answers what it became: `pending` (closed unpaid:
 * it can no longer be paid), `succeeded` (it was paid first), or `processing` when it could not be
 * closed. A capability beside the port: a provider without it lets a collection end by itself.
 */
export interface ClosesCollections {
  cancelCollection(reference: string, method?: PaymentMethod): Promise<ProviderStatusAnswer>;
}

export const closesCollections = (provider: PaymentProvider): provider is PaymentProvider & ClosesCollections =>
  typeof (provider as Partial<ClosesCollections>).cancelCollection === 'function';

/**
 * A provider whose API de-duplicates a call (Wave's payout by our `idempotency-key`, its checkout
 * refund by the refunded session: a session is refunded at most once): a call left without an answer (timeout, 5xx, a crash
 * between record and send) is sent AGAIN with the same reference until the provider answers,
 * instead of only being asked about (providerFlow.ts `askOrResend`). A capability beside the port.
 */
export interface ResendsSafely {
  resendsSafely(kind: 'payout' | 'refund', method?: PaymentMethod): boolean;
}

export const resendsSafely = (provider: PaymentProvider, kind: 'payout' | 'refund', method?: PaymentMethod): boolean =>
  typeof (provider as Partial<ResendsSafely>).resendsSafely === 'function' && (provider as unknown as ResendsSafely).resendsSafely(kind, method);

/** A provider's health as this process's calls saw it (operators: /healthz, /metrics, GraphQL, CLI). */
export interface ProviderHealth {
  healthy: boolean;
  /** Why it is down, for an operator ('' when healthy). */
  reason: string;
  since: Date | null;
  /** This process's last definite answer from the provider (another instance's later one clears its outage). */
  lastAnsweredAt?: Date | null;
  /** This process's last call refused for the credentials or left unanswered. */
  lastFailedAt?: Date | null;
}

/** A real provider reports its health; the sandbox does not (always healthy). */
export interface ReportsHealth {
  health(): ProviderHealth;
}

export const reportsHealth = (provider: PaymentProvider): provider is PaymentProvider & ReportsHealth =>
  typeof (provider as Partial<ReportsHealth>).health === 'function';

/** A call from a provider to the gateway, as received. */
export interface InboundNotification {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

/** One event a provider told us of, about one of our calls. */
export interface ProviderNotification {
  kind: 'payment' | 'refund' | 'payout';
  /** OUR reference of the call (attempt, refund or payout reference); '' when the provider gave none. */
  reference: string;
  status: 'succeeded' | 'failed' | 'pending' | 'processing';
  providerReference: string;
  reason?: string;
  /** The provider's event id (logs; duplicates are harmless anyway). */
  eventId: string;
  /** What the provider says moved, when it says. */
  amount?: bigint;
}

/** A notification that is not the provider's (bad signature, stale timestamp) or not readable. */
export class NotificationRejected extends Error {
  constructor(
    message: string,
    /** 401: not signed by the provider; 400: signed but unreadable. */
    readonly status: 401 | 400 = 401,
  ) {
    super(message);
    this.name = 'NotificationRejected';
  }
}

/** A provider that could not take or answer a call now (5xx, 429, network): unknown, never failed. */
export class ProviderUnavailable extends Error {
  constructor(
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

/** A provider that certainly did not receive a call (connection refused, unknown host, 429): nothing was done. */
export class ProviderUnreachable extends ProviderUnavailable {
  constructor(
    message: string,
    httpStatus?: number,
    /** A rate limit's Retry-After (ms), when the provider gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message, httpStatus);
    this.name = 'ProviderUnreachable';
  }
}

/** One entry of a provider's own books (reconciliation). */
export interface ProviderRecord {
  kind: 'payment' | 'refund' | 'payout';
  /** OUR reference when the provider keeps it (client_reference), else ''. */
  reference: string;
  providerReference: string;
  /** XOF, what the provider moved for this operation (gross: before its own fees). */
  amount: bigint;
  status: 'succeeded' | 'failed' | 'pending' | 'processing';
  at: Date;
  /** The provider's fee on it, as the provider reports it (Wave: the line's `fee`); reported, never compared. */
  fee?: bigint;
  /**
   * The provider's id of the collection the entry belongs to (Wave: checkout_api_session_id), for
   * an entry that lacks our reference: matched to the attempt whose provider reference it is.
   */
  collectionReference?: string;
  /**
   * Money the provider moved that the gateway never asked for (Wave: a payment to the QR code;
   * Orange Money: a record under none of our references, e.g. a till payment): counted, not a difference.
   */
  outsideGateway?: boolean;
}
