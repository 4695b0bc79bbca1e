/**
 * The bench's shared shapes, types only (and one type guard): a request, a scenario and its
 * target, a measurement's figures, a row of the report. Every other bench file imports them from
 * here, so the scenario list (scenarios.ts) can import the scenario files without a circle.
 */
import type { FormTokens } from '../src/checkout/csrf.js';
import type { ServerProcess } from './processes.js';

/** One HTTP request; autocannon sends it on one of its connections. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query string. */
  path: string;
  body?: string;
  /** Replace the defaults (JSON content type, the API key) for this request. */
  headers?: Record<string, string>;
}

/** Called once per request: a scenario's requests may all differ (ids, bodies). */
export type RequestFactory = () => BenchRequest;

/** What the scenarios may draw on, loaded once the seed is in place. */
export interface BenchData {
  /** A readAndWrite API key of the seeded organisation (sent on every request). */
  key: string;
  /** Known transaction ids. */
  ids: string[];
  /** The list filters: paid with wave, during one month well inside the seeded year. */
  list: { status: 'paid'; paymentMethod: 'wave'; startDate: string; endDate: string };
  /** Pending transactions added for this run: each is paid once (by the gateway or the floor). */
  payable: string[];
  /** Paid transactions added for this run, `main` funded to refund them all: each is refunded once. */
  refundable: string[];
  /** `payout` keys of payout-enabled organisations with funded accounts, one per organisation. */
  payoutKeys: string[];
  /** Signs the checkout forms the payment scenario posts, as the checkout page does. */
  formTokens: FormTokens;
  /** A reusable payment link of the seeded organisation (the link page scenarios). */
  paymentLinkId: string;
}

/** The servers a measurement can be taken on (started on first use, stopped at the end). */
export type ServerName = 'gateway' | 'checkout' | 'floors' | 'gatewayWithoutLimiter';

export interface Baseline {
  /** Measured once per run and shared by the scenarios that name it. */
  name: string;
  server: ServerName;
  request: (data: BenchData) => RequestFactory;
}

export type Target =
  /** At least `minReqRatio` of the baseline's req/s, and (if set) p99 at most `maxP99Ratio` times its p99. */
  | { kind: 'ratio'; minReqRatio: number; maxP99Ratio?: number }
  /** p99 at most `maxMs` above the baseline's p99. */
  | { kind: 'addedP99'; maxMs: number }
  /** Reported, not judged. */
  | { kind: 'none' }
  | ThroughputTarget;

/** A backlog drained at `minPerSecond` or more, all of it within `maxSeconds` (absolute: issue 9's figures). */
export interface ThroughputTarget {
  kind: 'throughput';
  minPerSecond: number;
  maxSeconds: number;
}

export interface BacklogContext {
  servers: ServerPool;
  data: BenchData;
  /** The gateway runs under --cpu-prof: stop it once its work is measured (its profile is written on exit). */
  profiling: boolean;
  log: (line: string) => void;
  /** When the bench must be done with its scenarios (optional extra rounds fit before it, or are left out). */
  deadline: number;
}

/** Prepares work for the gateway, lets it do it, measures that and its floor: one row. */
export interface BacklogScenario {
  kind: 'backlog';
  name: string;
  target: ThroughputTarget | LatencyTarget;
  /** The longest it may take: it is skipped when the bench's bound leaves less. */
  budgetMs: number;
  run(context: BacklogContext): Promise<Row>;
}

export type AnyScenario = Scenario | BacklogScenario;
export const isBacklogScenario = (scenario: AnyScenario): scenario is BacklogScenario => 'kind' in scenario && scenario.kind === 'backlog';

export interface Scenario {
  name: string;
  request: (data: BenchData) => RequestFactory;
  baseline: Baseline;
  target: Target;
  /**
   * One request at a time, timed to the microsecond, taking turns with the baseline request by
   * request (default: LOAD.connections at once with autocannon, baseline and gateway in turn).
   */
  sequential?: boolean;
  /** Where the gateway side is measured (default: the gateway's API origin; `checkout`: its checkout origin). */
  server?: ServerName;
}

/** The servers a backlog scenario may start (on first use) and stop: bench/servers.ts's Servers. */
interface ServerPool {
  get(name: ServerName): Promise<ServerProcess>;
  stop(name: ServerName): Promise<void>;
}

/** One measurement of one server. */
export interface Figures {
  reqPerSec: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  requests: number;
  /**
   * Answers 4xx/5xx (or none), connection errors and timeouts: any of them makes the row invalid.
   * A 3xx counts as answered: the checkout's success is a 303 to the merchant's page.
   */
  failedAnswers: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Largest RSS of the server during the measured run (MB); null when not sampled. */
  rssMaxMB: number | null;
  /** The server process's own CPU time per answered request (ms): where a gap to the floor is spent in-process. */
  cpuMsPerRequest: number | null;
}

export interface LatencyTarget {
  kind: 'p99';
  maxMs: number;
}

export interface Row {
  scenario: string;
  baseline: string;
  gateway: Figures;
  floor: Figures;
  ratioReqPerSec: number;
  ratioP99: number;
  addedP99Ms: number;
  target: string;
  /** null: nothing to judge (Target 'none'). */
  met: boolean | null;
  /** Why the figures cannot be trusted (non-2xx answers, errors, timeouts). */
  invalid?: string;
  /** A backlog scenario's drain: its time, its checks, where the CPU went. */
  drain?: DrainFigures;
}

/** The drain's own figures (the row's `drain`). */
export interface DrainFigures {
  items: number;
  /** Commit of the backlog to the last delivery marked delivered; null: not drained. */
  seconds: number | null;
  perSecond: number;
  /** Receiver side: first to last arrival. */
  receiverSeconds: number | null;
  /** What the checks found wrong; empty when every delivery arrived once, signed, and is marked delivered. */
  problems: string[];
  checks: Record<string, number>;
  /**
   * CPU per delivery (ms) of the gateway, the receiver and the bench database's PostgreSQL
   * backends (the gateway's pool, autovacuum there, the bench's own polling), and how busy the
   * machine's cores were during the drain (0-1, other users of the machine included).
   */
  cpu: { gatewayMsPerDelivery: number | null; receiverMsPerDelivery: number | null; postgresMsPerDelivery: number | null; machineBusy: number | null };
  /** TCP connections the receiver accepted during the drain (keep-alive: about the concurrency). */
  receiverConnections: number;
  concurrency: { overall: number; perEndpoint: number };
  endpoints: number;
  bodyBytes: number;
  seedSeconds: number;
}
