/**
 * Live updates (docs/graphql.md#live-updates: the GraphQL subscriptions transactionStatusChanged,
 * payoutStatusChanged, payoutBatchStatusChanged and payoutBatchProgress): every committed status
 * change of a transaction, a payout or a payout batch, and each item of a running batch answered,
 * is told to the subscribers watching its organisation (or all of them: operators), on every
 * instance.
 *
 * The path: the capability that changed a status announces it once its statement committed
 * (`announce*`, through afterCommit: a subscriber never sees a change that rolled back), as ONE
 * message on the coordination's LiveEventBus (Redis pub/sub across instances, in-process when
 * embedded). Each process subscribes once, and its hub here hands the event to the local
 * subscribers of that organisation.
 *
 * BEST EFFORT, AT MOST ONCE: a crash between the commit and the publish, Redis down at that moment,
 * an instance's subscription down while it is published, or a change in the milliseconds before
 * the first listener of a quiet deployment is heard of (nothing is published while nobody
 * listens: infra/redis/coordination.ts), loses the live event. Webhooks (the
 * outbox, written in the same statement as a payment) remain the durable channel; a screen that
 * reconnects re-reads the state it shows.
 *
 * Bounds (every one protects the process's memory from its clients):
 * - MAX_SUBSCRIBERS per process, MAX_SUBSCRIBERS_PER_ORGANIZATION per watched organisation (one
 *   merchant cannot take a process's whole share; operators watching every organisation count as
 *   one more "organisation"): past them a new subscription is refused (429).
 * - MAX_QUEUED_EVENTS per subscriber: a consumer that does not read its stream (a slow or stalled
 *   client; the HTTP response applies back-pressure) is DISCONNECTED past it, its stream completed,
 *   rather than dropping events silently: a screen that missed events must know it, reconnect and
 *   re-read.
 * - MAX_MESSAGE_LENGTH: a message on the channel that is longer, or not ours, is ignored.
 * - MAX_LIFETIME_MS: a stream ends after an hour at most; the client subscribes again and is
 *   authenticated again.
 *
 * Access is not only checked when subscribing: a merchant's stream ends at once when its key is
 * revoked or its organisation changes (blocked...), an operator's when its issued token is
 * revoked, on the invalidation that drops cached callers
 * (access/callerCache.ts), and when this instance may have missed such a message (INVALIDATE_ALL,
 * after a gap in its Redis subscription: live events of the gap were lost too, so the client
 * re-reads). It subscribes again, and is authorised again.
 */
import type { PayoutBatchStatus, PayoutStatus, TransactionStatus } from '../../generated/prisma/enums.js';
import { invalidationsOf } from '../access/callerCache.js';
import type { ReadAccess } from '../access/auth.js';
import { afterCommit } from '../afterCommit.js';
import type { DbTransaction, GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { INVALIDATE_ALL, type Coordination, type Db, type Logger } from '../ports.js';

/**
 * Open subscriptions per process: each holds an HTTP response and a small queue. 10,000 is far
 * past the bench's 1,000 and well within a process's sockets and memory (a few kB each); beyond
 * that, run more instances.
 */
const MAX_SUBSCRIBERS = 10_000;
/** Per watched organisation (or "every organisation"), so one client cannot take a process's share. */
export const MAX_SUBSCRIBERS_PER_ORGANIZATION = 2_000;
/**
 * Events waiting for a subscriber that does not read: a live screen reads within milliseconds,
 * so 100 unread events is a stalled client, disconnected (its stream completed).
 */
export const MAX_QUEUED_EVENTS = 100;
/** Our messages are ~150 bytes (kind, two UUIDs, a status, a timestamp). */
const MAX_MESSAGE_LENGTH = 1_024;
/**
 * How long a new subscription waits for this instance to be subscribed on Redis (only the first
 * one of a process does, or one after an outage): past it, refused (503) rather than held open
 * while hearing nothing.
 */
const LISTEN_TIMEOUT_MS = 2_000;
/**
 * A stream nobody starts reading within this is closed: an adapter that opened it and then did not
 * stream it (Yoga answering 406 to a subscription asked with `Accept: application/json`) would
 * otherwise hold its place until MAX_LIFETIME_MS, and a client could fill the limits that way. An
 * SSE response reads at once.
 */
export const UNREAD_GRACE_MS = 10_000;
/** The longest a stream lasts before the client must subscribe (and authenticate) again. */
const MAX_LIFETIME_MS = 60 * 60_000;

/**
 * What changed: a transaction's status, a payout's, a payout batch's (`payoutBatch`: started,
 * ended), or an item of a running batch was answered (`payoutBatchItem`: its progress; the
 * batch's id and status, `running`).
 */
const LIVE_KINDS = ['transaction', 'payout', 'payoutBatch', 'payoutBatchItem'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];
type LiveOperation = 'transactionStatusChanged' | 'payoutStatusChanged' | 'payoutBatchStatusChanged' | 'payoutBatchProgress';

export interface StatusChange<Status extends string = string> {
  organizationId: string;
  /** The transaction's or the payout's id (its orderId), or the payout batch's. */
  orderId: string;
  status: Status;
  /** When the change was announced, right after it committed. */
  changedAt: Date;
}
export type TransactionStatusChange = StatusChange<TransactionStatus>;
export type PayoutStatusChange = StatusChange<PayoutStatus>;

export type PayoutBatchStatusChange = StatusChange<PayoutBatchStatus>;

interface LiveEvent extends StatusChange {
  kind: LiveKind;
}

/**
 * A committed status change, to every subscriber of its organisation on every instance: now when
 * written on `ctx.db`, after the transaction when written inside one (afterCommit). Never throws:
 * a failed publish is logged, the change it tells of stands.
 */
export function announceStatusChange(
  ctx: GatewayContext,
  db: Db | DbTransaction,
  kind: LiveKind,
  row: { id: string; organizationId: string; status: string },
): void {
  afterCommit(ctx, db, () => {
    const message = JSON.stringify({ k: kind, o: row.organizationId, i: row.id, s: row.status, t: ctx.clock.now().getTime() });
    ctx.coordination.liveEvents.publish(message).catch((error: unknown) => warnLost(ctx.log, error));
  });
}

/** One line per minute at most while publishing fails (Redis down): the outage is logged elsewhere too. */
let lastLossReportedAt = Number.NEGATIVE_INFINITY;
function warnLost(log: Logger, error: unknown): void {
  const now = Date.now();
  if (now - lastLossReportedAt < 60_000) return;
  lastLossReportedAt = now;
  log.warn({ err: error }, 'a live update could not be published (subscribers miss it; webhooks are unaffected)');
}

function parseEvent(message: string): LiveEvent | null {
  if (message.length > MAX_MESSAGE_LENGTH) return null;
  try {
    const { k, o, i, s, t } = JSON.parse(message) as Record<string, unknown>;
    if (!LIVE_KINDS.includes(k as LiveKind) || typeof o !== 'string' || typeof i !== 'string' || typeof s !== 'string' || typeof t !== 'number') return null;
    return { kind: k as LiveKind, organizationId: o, orderId: i, status: s, changedAt: new Date(t) };
  } catch {
    return null;
  }
}

/** Subscribers are filed by what they watch: `<kind>:<organisation id>`, or `<kind>:*` for every organisation. */
const watchKey = (kind: LiveKind, organizationId: string | null): string => `${kind}:${organizationId ?? '*'}`;

/** One subscriber's stream: an async iterator fed by the hub, bounded by MAX_QUEUED_EVENTS. */
class Subscription implements AsyncIterableIterator<StatusChange> {
  private readonly queue: StatusChange[] = [];
  private waiting: ((result: IteratorResult<StatusChange>) => void) | undefined;
  private closed = false;

  private readonly expiry: NodeJS.Timeout;
  private unread: NodeJS.Timeout | undefined;

  constructor(
    /** The invalidations (callerCache.ts) that end it: its key's and its organisation's, or its operator token's. */
    readonly endsOn: readonly string[],
    private readonly onClose: (subscription: Subscription) => void,
  ) {
    this.expiry = setTimeout(() => this.close(), MAX_LIFETIME_MS);
    this.expiry.unref();
    this.unread = setTimeout(() => this.close(), UNREAD_GRACE_MS);
    this.unread.unref();
  }

  push(event: StatusChange): void {
    if (this.closed) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
    } else if (this.queue.length >= MAX_QUEUED_EVENTS) {
      this.close(); // a stalled reader: disconnected, not silently short of events
    } else {
      this.queue.push(event);
    }
  }

  next(): Promise<IteratorResult<StatusChange>> {
    if (this.unread) {
      clearTimeout(this.unread);
      this.unread = undefined;
    }
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** The client went away (or the server stops): forget it at once. */
  return(): Promise<IteratorResult<StatusChange>> {
    this.close();
    this.queue.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StatusChange> {
    return this;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.expiry);
    clearTimeout(this.unread);
    this.onClose(this);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }
}

/** A process's subscribers and its one subscription to the bus. */
class LiveHub {
  private readonly watchers = new Map<string, Set<Subscription>>();
  private count = 0;
  private listening: Promise<void> | undefined;

  constructor(private readonly coordination: Coordination) {
    coordination.invalidations.subscribe(this.revoke);
  }

  /** Ends the merchant streams an access change concerns (or all of them, when one may have been missed). */
  private readonly revoke = (message: string): void => {
    for (const watching of this.watchers.values()) {
      for (const subscription of [...watching]) {
        if (subscription.endsOn.length > 0 && (message === INVALIDATE_ALL || subscription.endsOn.includes(message))) subscription.close();
      }
    }
  };

  private readonly deliver = (message: string): void => {
    const event = parseEvent(message);
    if (!event) return;
    const change: StatusChange = { organizationId: event.organizationId, orderId: event.orderId, status: event.status, changedAt: event.changedAt };
    for (const key of [watchKey(event.kind, event.organizationId), watchKey(event.kind, null)]) {
      const watching = this.watchers.get(key);
      if (!watching) continue;
      // A copy: a subscriber closed while handed this event leaves the set meanwhile.
      for (const subscription of [...watching]) subscription.push(change);
    }
  };

  /** Subscribes this process to the bus once; a failed attempt is retried by the next subscriber. */
  private listen(): Promise<void> {
    this.listening ??= this.coordination.liveEvents.subscribe(this.deliver).catch((error: unknown) => {
      this.listening = undefined;
      throw error;
    });
    return this.listening;
  }

  get size(): number {
    return this.count;
  }

  /** Completes every stream (the server is stopping). */
  endAll(): void {
    for (const watching of [...this.watchers.values()]) for (const subscription of [...watching]) subscription.close();
  }

  /** One subscriber to the changes of `kinds` (one stream, one place in the bounds whatever the kinds). */
  async open(kinds: readonly LiveKind[], organizationId: string | null, endsOn: readonly string[]): Promise<Subscription> {
    const keys = kinds.map((kind) => watchKey(kind, organizationId));
    const sets = keys.map((key) => this.watchers.get(key) ?? new Set<Subscription>());
    if (this.count >= MAX_SUBSCRIBERS || sets.some((watching) => watching.size >= MAX_SUBSCRIBERS_PER_ORGANIZATION))
      throw new DomainError('too_many_subscriptions');
    // Filed before waiting for the bus: a change announced once it listens is not missed.
    const subscription = new Subscription(endsOn, (closed) => {
      let filed = false;
      keys.forEach((key, index) => {
        const watching = sets[index]!;
        if (watching.delete(closed)) filed = true;
        if (watching.size === 0 && this.watchers.get(key) === watching) this.watchers.delete(key);
      });
      if (filed) this.count -= 1;
    });
    keys.forEach((key, index) => {
      sets[index]!.add(subscription);
      this.watchers.set(key, sets[index]!);
    });
    this.count += 1;
    try {
      await withTimeout(this.listen(), LISTEN_TIMEOUT_MS);
    } catch {
      subscription.close();
      throw new DomainError('live_updates_unavailable');
    }
    return subscription;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`not listening after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One hub per coordinator (a process has one; tests may build several gateways in one process). */
const hubs = new WeakMap<Coordination, LiveHub>();

/**
 * The changes of `kinds` (one, or several in one stream) in the organisation `access` reads (or
 * every one: an operator's null), from now on, until the consumer stops (or stalls, or its access
 * changes: see above). Resolves once this instance is listening.
 */
export function watchStatusChanges(
  ctx: GatewayContext,
  kinds: LiveKind | readonly LiveKind[],
  access: ReadAccess<LiveOperation>,
): Promise<AsyncIterableIterator<StatusChange>> {
  let hub = hubs.get(ctx.coordination);
  if (!hub) {
    hub = new LiveHub(ctx.coordination);
    hubs.set(ctx.coordination, hub);
  }
  // Revoking the caller ends the stream (invalidationsOf: a key, its organisation, a dashboard user
  // signed out, removed or given another role, an issued operator token; the bootstrap token is
  // not revocable: its stream ends with the hour).
  const endsOn = invalidationsOf(access.caller);
  return hub.open(typeof kinds === 'string' ? [kinds] : kinds, access.organizationId, endsOn);
}

/** Subscriptions open in this process (metrics, tests): each ends when its client goes away. */
export const liveSubscriberCount = (ctx: Pick<GatewayContext, 'coordination'>): number => hubs.get(ctx.coordination)?.size ?? 0;

/**
 * Completes every stream of this process: the HTTP server is stopping, and an open SSE response
 * would otherwise hold its close (and the process's graceful shutdown) until the grace runs out.
 * Clients see the stream complete and subscribe again, on an instance still running.
 */
export function endLiveStreams(ctx: Pick<GatewayContext, 'coordination'>): void {
  hubs.get(ctx.coordination)?.endAll();
}
