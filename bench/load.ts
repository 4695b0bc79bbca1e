/**
 * One measurement: a warm-up, then a fixed-duration run, sampling the server's RSS meanwhile.
 * Concurrent runs are autocannon at LOAD.connections connections; sequential runs are one request
 * at a time per keep-alive connection, timed to the microsecond (autocannon's latency histogram
 * counts whole milliseconds: too coarse to see a sub-millisecond cost).
 */
import http from 'node:http';
import autocannon from 'autocannon';
import { waitDatabaseQuiet } from './database.js';
import { LOAD } from './settings.js';
import { cpuMs, sampleRss } from './processes.js';
import type { BenchRequest, Figures, RequestFactory } from './shapes.js';

export interface LoadTarget {
  url: string;
  /** The server process, for RSS sampling. */
  pid?: number;
  /** Sent on every request (the API key). */
  headers: Record<string, string>;
}

const failedAnswersOf = (statusCodes: Record<string, number>): number =>
  Object.entries(statusCodes)
    .filter(([code]) => !/^[23]/.test(code))
    .reduce((sum, [, count]) => sum + count, 0);

type RunFigures = Omit<Figures, 'rssMaxMB' | 'cpuMsPerRequest'>;

async function concurrent(target: LoadTarget, factory: RequestFactory, seconds: number, connections: number): Promise<RunFigures> {
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    timeout: LOAD.requestTimeoutSeconds,
    headers: { 'content-type': 'application/json', ...target.headers },
    // setupRequest runs for every request, so each may differ (ids, bodies).
    requests: [
      {
        setupRequest: (request) => {
          const next = factory();
          return { ...request, ...next, headers: { ...request.headers, ...next.headers } };
        },
      },
    ],
  });
  return {
    reqPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failedAnswers: failedAnswersOf(Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]))),
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
  };
}

/** One request on the agent's single socket; resolves with the status once the body is read. */
function send(agent: http.Agent, target: LoadTarget, request: BenchRequest): Promise<number> {
  const { hostname, port } = new URL(target.url);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        agent,
        hostname,
        port,
        method: request.method,
        path: request.path,
        headers: { 'content-type': 'application/json', ...target.headers, ...request.headers },
        timeout: LOAD.requestTimeoutSeconds * 1000,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** Rounded to hundredths, as a row's ratios are. */
export const round2 = (value: number): number => Math.round(value * 100) / 100;

/** How a row's gateway compares with its floor: req/s and p99 as ratios to the floor's, and the p99 it adds. */
export function comparedWithFloor(
  gateway: Pick<Figures, 'reqPerSec' | 'p99'>,
  floor: Pick<Figures, 'reqPerSec' | 'p99'>,
): { ratioReqPerSec: number; ratioP99: number; addedP99Ms: number } {
  return {
    ratioReqPerSec: round2(gateway.reqPerSec / Math.max(floor.reqPerSec, 1e-6)),
    ratioP99: round2(gateway.p99 / Math.max(floor.p99, 0.01)),
    addedP99Ms: round2(gateway.p99 - floor.p99),
  };
}

/** The value at share `p` of sorted milliseconds, to 0.01 ms. */
export const percentile = (sorted: number[], p: number): number => round2(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);

/**
 * Figures of calls made one at a time (a transport's calls, a browser's page loads): p50 and p99
 * of their durations, and how many fit in a second back to back. Answers and CPU are the caller's.
 */
export function sequentialFigures(durations: number[], answers: Pick<Figures, 'failedAnswers' | 'statusCodes' | 'cpuMsPerRequest'>): Figures {
  const sorted = [...durations].sort((a, b) => a - b);
  const totalMs = sorted.reduce((sum, ms) => sum + ms, 0);
  return {
    reqPerSec: round2(sorted.length / Math.max(totalMs / 1000, 1e-6)),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    requests: sorted.length,
    errors: 0,
    timeouts: 0,
    rssMaxMB: null,
    ...answers,
  };
}

/**
 * One request at a time, taking turns between `targets` (the first target alternates each turn),
 * so that with two servers both see the same moments of a shared, noisy machine.
 */
async function sequentialRun(targets: LoadTarget[], factory: RequestFactory, seconds: number): Promise<RunFigures[]> {
  const sides = targets.map((target) => ({
    target,
    agent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    latencies: [] as number[],
    statusCodes: {} as Record<string, number>,
    errors: 0,
  }));
  const deadline = performance.now() + seconds * 1000;
  for (let turn = 0; performance.now() < deadline && turn * sides.length < LOAD.sequentialMaxRequests; turn += 1) {
    for (const side of turn % 2 ? [...sides].reverse() : sides) {
      const started = performance.now();
      try {
        const status = await send(side.agent, side.target, factory());
        side.latencies.push(performance.now() - started);
        side.statusCodes[status] = (side.statusCodes[status] ?? 0) + 1;
      } catch {
        side.errors += 1;
      }
    }
  }
  return sides.map(({ agent, latencies, statusCodes, errors }) => {
    agent.destroy();
    const sorted = latencies.sort((a, b) => a - b);
    return {
      reqPerSec: Math.round(latencies.length / seconds),
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      requests: latencies.length,
      failedAnswers: failedAnswersOf(statusCodes),
      errors,
      timeouts: 0,
      statusCodes,
    };
  });
}

/** Lets what the last run left in flight finish: the database goes quiet, then a short pause. */
async function settle(): Promise<void> {
  await waitDatabaseQuiet();
  await new Promise((resolve) => setTimeout(resolve, LOAD.settleMs));
}

/** RSS and CPU of a server process, watched over a measured run. */
function watch(target: LoadTarget) {
  const rss = target.pid ? sampleRss(target.pid, LOAD.rssSampleMs) : null;
  const cpuBefore = target.pid ? cpuMs(target.pid) : null;
  return (figures: RunFigures): Figures => {
    const cpuAfter = target.pid ? cpuMs(target.pid) : null;
    const cpu = cpuBefore !== null && cpuAfter !== null && figures.requests > 0 ? Math.round(((cpuAfter - cpuBefore) / figures.requests) * 1000) / 1000 : null;
    return { ...figures, rssMaxMB: rss?.stop() ?? null, cpuMsPerRequest: cpu };
  };
}

/** Warm-up (discarded: JIT, caches, pool connections), settling, then the measured run at LOAD.connections (or `connections`). */
export async function measure(target: LoadTarget, factory: RequestFactory, warmupSeconds: number, connections: number = LOAD.connections): Promise<Figures> {
  await settle();
  await concurrent(target, factory, warmupSeconds, connections);
  await settle();
  const watched = watch(target);
  return watched(await concurrent(target, factory, LOAD.durationSeconds, connections));
}

/** The same, sequentially, taking turns between two servers: [baseline, gateway] measured in one run. */
export async function measurePaired(baseline: LoadTarget, gateway: LoadTarget, factory: RequestFactory, warmupSeconds: number): Promise<[Figures, Figures]> {
  await settle();
  await sequentialRun([baseline, gateway], factory, warmupSeconds);
  await settle();
  const watched = [watch(baseline), watch(gateway)] as const;
  const [onBaseline, onGateway] = await sequentialRun([baseline, gateway], factory, LOAD.durationSeconds);
  return [watched[0](onBaseline!), watched[1](onGateway!)];
}

/** Rounds of one side of a scenario as one set of figures: rates and latencies averaged, counts summed, RSS at its largest. */
export function combine(rounds: Figures[]): Figures & { rounds: Pick<Figures, 'reqPerSec' | 'p50' | 'p99'>[] } {
  const mean = (pick: (figures: Figures) => number) => Math.round((rounds.reduce((sum, figures) => sum + pick(figures), 0) / rounds.length) * 100) / 100;
  const sum = (pick: (figures: Figures) => number) => rounds.reduce((total, figures) => total + pick(figures), 0);
  const statusCodes: Record<string, number> = {};
  for (const figures of rounds) for (const [code, count] of Object.entries(figures.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const rss = rounds.map((figures) => figures.rssMaxMB).filter((mb): mb is number => mb !== null);
  const cpu = rounds.map((figures) => figures.cpuMsPerRequest).filter((ms): ms is number => ms !== null);
  return {
    reqPerSec: Math.round(mean((f) => f.reqPerSec)),
    p50: mean((f) => f.p50),
    p99: mean((f) => f.p99),
    requests: sum((f) => f.requests),
    failedAnswers: sum((f) => f.failedAnswers),
    errors: sum((f) => f.errors),
    timeouts: sum((f) => f.timeouts),
    statusCodes,
    rssMaxMB: rss.length ? Math.max(...rss) : null,
    cpuMsPerRequest: cpu.length ? Math.round((cpu.reduce((total, ms) => total + ms, 0) / cpu.length) * 1000) / 1000 : null,
    rounds: rounds.map(({ reqPerSec, p50, p99 }) => ({ reqPerSec, p50, p99 })),
  };
}

export const isValid = (figures: Figures): boolean => figures.failedAnswers === 0 && figures.errors === 0 && figures.timeouts === 0 && figures.requests > 0;
