/**
 * The read replica (DATABASE_REPLICA_URL): a streaming standby of the primary that serves the reads
 * that may lag (`laggingReads(ctx)`: list pages, analytics, exports). Everything else never sees it:
 * ctx.db is the primary, and only `ctx.replica` is this client.
 *
 * The rule, in one place (ReplicaLagRule, applied when a connection is taken from this client's
 * pool, so it holds for Prisma's model calls, raw queries, transactions and the direct statements
 * alike): a lagging read goes to the replica only while the replica is known to be at most
 * REPLICA_MAX_LAG_MS behind the primary; otherwise it takes a connection of the primary's pool.
 *
 * - How far behind: every REPLICA_CHECK_INTERVAL_MS (not per request) the primary's WAL position
 *   (pg_current_wal_lsn) is sampled with its time, and the replica's replayed position
 *   (pg_last_wal_replay_lsn) is read. The replica lags by the age of the oldest sample it has not
 *   replayed yet (0 when it has replayed them all). Positions, not `now() - pg_last_xact_replay_timestamp()`:
 *   that one grows on an idle primary, which has nothing to replay, and would send reads to the
 *   primary for no reason.
 * - Between checks the answer ages: the rule counts the time since the check as lag too, so a
 *   replica whose checks stop (hung, unreachable) loses its reads within REPLICA_MAX_LAG_MS.
 * - The replica down: a connection it cannot give, or a query it fails for a reason of its own
 *   (connection lost, shutting down, a recovery conflict), is taken again from the primary; the
 *   rule then marks it unreachable until the next check answers. Logged at most once a minute.
 * - Not read-your-writes: a client that just wrote may list without its write for up to the bound.
 *   What decides money reads ctx.db; a get by id reads the primary.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client.js';
import type { Logger } from '../../domain/ports.js';
import { registerRowStreams } from '../../domain/rowStreams.js';
import { registerDirectStatements } from '../../domain/statements.js';
import { StartupError, postgresStartupError } from '../startupErrors.js';
import {
  CONNECT_TIMEOUT_MS,
  PING_TIMEOUT_MS,
  TRANSACTION_OPTIONS,
  cursorStreamer,
  directStatementRunner,
  postgresPoolConfig,
  preparedStatementNames,
  surviveEndedSessions,
} from './database.js';

export interface ReplicaOptions {
  /** DATABASE_REPLICA_URL. */
  url: string;
  /** DATABASE_URL: the lag checks sample its WAL position on a connection of their own. */
  primaryUrl: string;
  /** The primary's pool: reads the replica must not serve take their connection there. */
  primary: pg.Pool;
  /** REPLICA_MAX_LAG_MS. */
  maxLagMs: number;
  /** REPLICA_CHECK_INTERVAL_MS (must be less than maxLagMs: config.ts). */
  checkIntervalMs: number;
  log: Logger;
  /** Upper bound of replica connections (default 10, as the primary's). */
  poolMax?: number;
}

export type ReplicaState = 'serving' | 'lagging' | 'unreachable' | 'not a standby' | 'unknown';

export interface ReplicaStatus {
  state: ReplicaState;
  /** The lag the last check measured (ms), null when it could not measure. */
  lagMs: number | null;
}

export interface Replica {
  /** ctx.replica: a Prisma client whose connections come from the replica while the rule allows. */
  prisma: PrismaClient;
  status(): ReplicaStatus;
  /** Runs one check now (tests; the timer runs them on its own). */
  check(): Promise<ReplicaStatus>;
  close(): Promise<void>;
}

/** A WAL position ('16/B374D848') as a number of bytes. */
const lsnOf = (text: string): bigint => {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

/**
 * Bound of the samples kept: past it the two oldest after the first are merged, keeping the later
 * position with the earlier time (which can only overstate the lag, never understate it).
 */
const MAX_SAMPLES = 256;

/** Whether a lagging read may go to the replica now (see the file's comment). */
export class ReplicaLagRule {
  private samples: Array<{ at: number; lsn: bigint }> = [];
  private lagMs: number | null = null;
  private measuredAt = 0;
  private state: ReplicaState = 'unknown';

  constructor(private readonly maxLagMs: number) {}

  /**
   * One check's answer: the primary was at `primaryLsn` at `at`, and the replica has replayed up
   * to `replayed`. `replayedCommitAt`: the replica's last replayed commit time, which bounds the
   * age of what it has not replayed when there is no earlier sample to tell (the first check).
   */
  measured(at: number, primaryLsn: bigint, replayed: bigint, replayedCommitAt: number | null): void {
    if (this.lagMs === null && replayed < primaryLsn) {
      // Behind on the first look (since the start, or a failed check): no earlier sample says how
      // old its missing WAL is; at most as old as the last commit it replayed (unknown: as old as
      // can be, until it has replayed this sample).
      this.samples.push({ at: Math.min(at, replayedCommitAt ?? Number.NEGATIVE_INFINITY), lsn: primaryLsn });
    }
    this.samples.push({ at, lsn: primaryLsn });
    this.samples = this.samples.filter((sample) => sample.lsn > replayed);
    if (this.samples.length > MAX_SAMPLES) this.samples.splice(1, 2, { at: this.samples[1]!.at, lsn: this.samples[2]!.lsn });
    this.lagMs = this.samples.length ? at - this.samples[0]!.at : 0;
    this.measuredAt = at;
    this.state = this.lagMs <= this.maxLagMs ? 'serving' : 'lagging';
  }

  /** The check could not tell (primary or replica did not answer): the positions so far are no guide. */
  failed(state: 'unreachable' | 'not a standby' | 'unknown'): void {
    this.samples = [];
    this.lagMs = null;
    this.state = state;
  }

  /** The lag the last check measured plus the time since: within the bound, the replica serves. */
  serves(now: number): boolean {
    return this.lagMs !== null && this.lagMs + (now - this.measuredAt) <= this.maxLagMs;
  }

  status(now: number): ReplicaStatus {
    const state = this.state === 'serving' && !this.serves(now) ? 'lagging' : this.state;
    return { state, lagMs: this.lagMs };
  }
}

/**
 * SQLSTATE classes and codes that are the replica's own failing, not the statement's: connection
 * exceptions (08), the server shutting down or starting (57P01-57P03), out of connections (53300),
 * and a recovery conflict (40001: the standby cancelled the read to replay WAL). Errors without a
 * SQLSTATE are the driver's (connection refused, reset, timed out). A statement's own error (bad
 * input, a timeout of its own) would fail the same on the primary: it is not retried there.
 */
function isReplicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '40001'].includes(code);
}

/** How often a replica that keeps failing is logged (a warn per request would flood the log). */
const FAILURE_LOG_EVERY_MS = 60_000;

export async function openReplica(options: ReplicaOptions): Promise<Replica> {
  const { log, primary, maxLagMs, checkIntervalMs } = options;
  const rule = new ReplicaLagRule(maxLagMs);
  // The checks' own connections, one to each server: a check must not queue behind requests (a
  // busy pool would read as lag), and requests must not wait for a check.
  const checkPool = (url: string) =>
    new pg.Pool({
      connectionString: url,
      max: 1,
      connectionTimeoutMillis: PING_TIMEOUT_MS,
      statement_timeout: PING_TIMEOUT_MS,
      query_timeout: PING_TIMEOUT_MS,
    });
  const replicaCheck = checkPool(options.url);
  const primaryCheck = checkPool(options.primaryUrl);
  for (const pool of [replicaCheck, primaryCheck]) surviveEndedSessions(pool);

  let lastFailureLog = Number.NEGATIVE_INFINITY;
  const replicaFailed = (error: unknown, during: string) => {
    rule.failed('unreachable');
    const now = Date.now();
    if (now - lastFailureLog < FAILURE_LOG_EVERY_MS) return;
    lastFailureLog = now;
    log.warn({ during, error: (error as Error)?.message ?? String(error) }, 'read replica failed: lagging reads go to the primary until it answers again');
  };

  const pool = surviveEndedSessions(new pg.Pool(postgresPoolConfig(options.url, options.poolMax ?? 10)));
  routeThroughRule(pool, { primary, serves: () => rule.serves(Date.now()), failed: replicaFailed });
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool, { statementNameGenerator: preparedStatementNames(undefined, 'gwr') }),
    transactionOptions: TRANSACTION_OPTIONS,
  });
  registerDirectStatements(prisma, directStatementRunner(pool));
  // Exports stream through a cursor on one connection, taken by the rule like any other; a stream
  // already running when the replica fails ends with an error (its rows so far are sent).
  registerRowStreams(prisma, cursorStreamer(pool));

  let previous: ReplicaState = 'unknown';
  const check = async (): Promise<ReplicaStatus> => {
    const [sample, standby] = await Promise.allSettled([
      primaryCheck.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'),
      replicaCheck.query<{ standby: boolean; replayed: string | null; committed: Date | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed, pg_last_xact_replay_timestamp() AS committed',
      ),
    ]);
    const at = Date.now();
    if (standby.status === 'rejected') replicaFailed(standby.reason, 'lag check');
    else if (!standby.value.rows[0]?.standby || standby.value.rows[0].replayed === null) rule.failed('not a standby');
    else if (sample.status === 'rejected') rule.failed('unknown');
    else {
      const { replayed, committed } = standby.value.rows[0];
      rule.measured(at, lsnOf(sample.value.rows[0]!.lsn), lsnOf(replayed), committed?.getTime() ?? null);
    }
    const status = rule.status(at);
    if (status.state !== previous && status.state !== 'unreachable') {
      const line = { state: status.state, lagMs: status.lagMs, maxLagMs };
      if (status.state === 'serving') log.info(line, 'read replica serves lagging reads');
      else log.warn(line, 'read replica skipped: lagging reads go to the primary');
    }
    previous = status.state;
    return status;
  };

  await refuseMistakes(options.url, replicaCheck, primaryCheck).catch(async (error: unknown) => {
    await Promise.allSettled([replicaCheck.end(), primaryCheck.end(), pool.end()]);
    throw error;
  });
  await check();

  let checking: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    checking ??= check()
      .catch((error: unknown) => replicaFailed(error, 'lag check'))
      .finally(() => (checking = undefined));
  }, checkIntervalMs);
  timer.unref();

  return {
    prisma,
    status: () => rule.status(Date.now()),
    check,
    close: async () => {
      clearInterval(timer);
      await checking;
      await prisma.$disconnect();
      await Promise.allSettled([pool.end(), replicaCheck.end(), primaryCheck.end()]);
    },
  };
}

/**
 * Mistakes that will not mend themselves refuse the start, in one line: an unknown database or
 * user, a server that is not a standby, or a standby of another cluster or database (its positions
 * would mean nothing against this primary's). A replica that is only unreachable (down, starting,
 * a network cut) does not: the gateway starts, lagging reads go to the primary, and the replica
 * serves once the checks reach it. The primary's availability must not hang on its replica's.
 */
async function refuseMistakes(url: string, replica: pg.Pool, primary: pg.Pool): Promise<void> {
  const identity =
    'SELECT pg_is_in_recovery() AS standby, (SELECT system_identifier::text FROM pg_control_system()) AS cluster, (SELECT oid::text FROM pg_database WHERE datname = current_database()) AS database';
  let replicaIdentity: { standby: boolean; cluster: string; database: string } | undefined;
  try {
    replicaIdentity = (await replica.query(identity)).rows[0];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === '3D000' || code === '28P01' || code === '28000' || code === 'ENOTFOUND')
      throw postgresStartupError(error, url, CONNECT_TIMEOUT_MS, 'DATABASE_REPLICA_URL');
    return;
  }
  if (!replicaIdentity?.standby) {
    throw new StartupError(
      'DATABASE_REPLICA_URL names a server that is not a standby (pg_is_in_recovery() is false): name a streaming replica of DATABASE_URL, or unset it',
    );
  }
  const primaryIdentity = (await primary.query(identity)).rows[0];
  if (primaryIdentity?.cluster !== replicaIdentity.cluster || primaryIdentity.database !== replicaIdentity.database) {
    throw new StartupError(
      'DATABASE_REPLICA_URL is not a replica of the database DATABASE_URL names (another cluster, or another database of it): name the standby of that database',
    );
  }
}

/**
 * Makes `pool` hand out connections by the rule: its own (the replica's) while the rule allows,
 * else the primary's; a connection the replica cannot give, and a single query it fails for its
 * own reasons, are taken again from the primary. The pool's own query() takes its connection
 * through connect(), so both of Prisma's paths (queries, transactions) and the direct statements
 * pass here. A transaction whose replica connection fails midway is not moved (it fails).
 */
function routeThroughRule(pool: pg.Pool, route: { primary: pg.Pool; serves: () => boolean; failed: (error: unknown, during: string) => void }): void {
  const ownConnect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const ownQuery = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>;
  const primaryQuery = route.primary.query.bind(route.primary) as (...args: unknown[]) => Promise<pg.QueryResult>;
  const connect = async (): Promise<pg.PoolClient> => {
    if (!route.serves()) return route.primary.connect();
    try {
      return await ownConnect();
    } catch (error) {
      route.failed(error, 'connect');
      return route.primary.connect();
    }
  };
  const query = async (args: unknown[]): Promise<pg.QueryResult> => {
    try {
      return await ownQuery(...args);
    } catch (error) {
      if (!isReplicaFailure(error)) throw error;
      route.failed(error, 'query');
      return primaryQuery(...args);
    }
  };
  type Callback = (error: Error | undefined, ...rest: unknown[]) => void;
  Object.assign(pool, {
    connect: (callback?: Callback) => {
      const taken = connect();
      if (!callback) return taken;
      taken.then(
        (client) => callback(undefined, client, client.release),
        (error: Error) => callback(error),
      );
      return undefined;
    },
    query: (...args: unknown[]) => {
      // The callback form (unused by Prisma and the direct statements) keeps pg's own behaviour.
      if (typeof args.at(-1) === 'function') return ownQuery(...args);
      return query(args);
    },
  });
}
