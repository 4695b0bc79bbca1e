/**
 * The live-updates scenario (issue 19): `subscribers` SSE subscriptions held open on the gateway at
 * once (transactionStatusChanged, the seeded organisation's readAndWrite key: every one of them
 * watches the organisation whose transactions change), then `changes` payments made at `perSecond`
 * (REST create beforehand, GraphQL sandboxPay during). Each event's delay is its arrival at a
 * subscriber minus its `changedAt` (stamped by the gateway right after the change committed; one
 * machine, one clock). Target: p99 at most `maxMs` (docs/graphql.md#live-updates: within a second).
 *
 * Floor: the transport alone, the same number of messages at the same pace published by this
 * process on a bare Redis channel and received on one subscribed connection, each handed to as many
 * in-process listeners as there are subscribers (what Redis and the client side cost without the
 * gateway, its SSE and its HTTP connections).
 *
 * Missed deliveries (an event a subscriber did not get) count as failed answers: the row is invalid.
 */
import { request as httpRequest } from 'node:http';
import { Redis } from 'ioredis';
import { comparedWithFloor, percentile } from './load.js';
import { cpuMs, sampleRss } from './processes.js';
import { BENCH_ADMIN_TOKEN } from './servers.js';
import { REDIS_URL } from './settings.js';
import type { BacklogContext, BacklogScenario, Figures, LatencyTarget, Row } from './shapes.js';

export interface SubscriptionScenarioOptions {
  name: string;
  subscribers: number;
  changes: number;
  perSecond: number;
  target: LatencyTarget;
}

const SUBSCRIPTION = `subscription { transactionStatusChanged { orderId status changedAt } }`;
const SANDBOX_PAY = `mutation ($orderId: ID!) { sandboxPay(orderId: $orderId, method: wave, phone: "+221770000001") { outcome } }`;
/** How long the last change may take to reach everyone before the count is closed. */
const STRAGGLER_WAIT_MS = 3_000;
/** Subscriptions opened at once while connecting (a burst of 1,000 TCP handshakes helps nobody). */
const OPENING_CONCURRENCY = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The delays seen by every subscriber: one entry per (event, subscriber). */
interface Deliveries {
  delays: number[];
  /** orderId -> subscribers that received it. */
  received: Map<string, number>;
}

/**
 * One SSE subscription; every `next` event for a watched order records its delay. Resolves once
 * the stream is open. node:http rather than fetch: a thousand web streams in this process cost
 * more than the gateway's side, and this process's lag would be counted as the gateway's delay.
 */
function openSubscriber(url: string, key: string, watched: Set<string>, into: Deliveries, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/graphql`, {
      method: 'POST',
      agent: false,
      signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}` },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      if (response.statusCode !== 200 || !(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        response.resume();
        reject(new Error(`subscription refused: ${response.statusCode}`));
        return;
      }
      response.setEncoding('utf8');
      let buffered = '';
      response.on('data', (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = block.indexOf('data: {');
          if (data < 0) continue;
          const change = (JSON.parse(block.slice(data + 6)) as { data?: { transactionStatusChanged?: { orderId: string; changedAt: string } } }).data
            ?.transactionStatusChanged;
          if (!change || !watched.has(change.orderId)) continue;
          into.delays.push(Date.now() - Date.parse(change.changedAt));
          into.received.set(change.orderId, (into.received.get(change.orderId) ?? 0) + 1);
        }
      });
      response.on('error', () => undefined); // aborted at the end of the run
      resolve();
    });
    request.end(JSON.stringify({ query: SUBSCRIPTION }));
  });
}

async function call(url: string, path: string, token: string, body: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

function figuresOf(deliveries: Deliveries, expected: number, seconds: number, errors: number, rssMaxMB: number | null): Figures {
  const sorted = deliveries.delays.slice().sort((a, b) => a - b);
  return {
    reqPerSec: Math.round(sorted.length / seconds),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    requests: sorted.length,
    failedAnswers: Math.max(0, expected - sorted.length),
    errors,
    timeouts: 0,
    statusCodes: {},
    rssMaxMB,
    cpuMsPerRequest: null,
  };
}

/** The transport's floor: Redis pub/sub to one subscribed connection, fanned out in process. */
async function redisFloor(options: SubscriptionScenarioOptions): Promise<Figures> {
  const channel = `bench:live-floor:${process.pid}`;
  const publisher = new Redis(REDIS_URL);
  const subscriber = new Redis(REDIS_URL);
  const deliveries: Deliveries = { delays: [], received: new Map() };
  try {
    const listeners = Array.from({ length: options.subscribers }, () => (message: { orderId: string; changedAt: string }) => {
      deliveries.delays.push(Date.now() - Date.parse(message.changedAt));
      deliveries.received.set(message.orderId, (deliveries.received.get(message.orderId) ?? 0) + 1);
    });
    subscriber.on('message', (_channel: string, text: string) => {
      const message = JSON.parse(text) as { orderId: string; changedAt: string };
      for (const listener of listeners) listener(message);
    });
    await subscriber.subscribe(channel);
    const started = performance.now();
    for (let i = 0; i < options.changes; i += 1) {
      await publisher.publish(channel, JSON.stringify({ orderId: String(i), status: 'paid', changedAt: new Date().toISOString() }));
      await sleep(1000 / options.perSecond);
    }
    await sleep(200);
    return figuresOf(deliveries, options.changes * options.subscribers, (performance.now() - started) / 1000, 0, null);
  } finally {
    subscriber.disconnect();
    publisher.disconnect();
  }
}

export function subscriptionScenario(options: SubscriptionScenarioOptions): BacklogScenario {
  const floorName = `Redis pub/sub alone (1 subscribed connection, ${options.subscribers.toLocaleString('en')} listeners in process)`;
  return {
    kind: 'backlog',
    name: options.name,
    target: options.target,
    // Creating the transactions, opening the subscriptions, the changes, the stragglers, the floor.
    budgetMs: (30 + (2 * options.changes) / options.perSecond) * 1000 + 2 * STRAGGLER_WAIT_MS,
    async run({ servers, data, log, profiling }: BacklogContext): Promise<Row> {
      const gateway = await servers.get('gateway');
      const orderIds: string[] = [];
      for (let i = 0; i < options.changes; i += 1) {
        const created = await call(gateway.url, '/api/v2/transactions', data.key, {
          method_of_payment: ['wave'],
          products: [{ name: 'Abonnement', price: 5_000, quantity: 1 }],
          customer: { first_name: 'Awa', last_name: 'Diop', phone: '+221770000001' },
          success_url: 'https://shop.example.sn/merci',
        });
        orderIds.push(created.order_id as string);
      }
      const watched = new Set(orderIds);
      const deliveries: Deliveries = { delays: [], received: new Map() };
      const abort = new AbortController();
      const rss = sampleRss(gateway.pid, 200);
      let errors = 0;
      try {
        const opening = performance.now();
        for (let opened = 0; opened < options.subscribers; opened += OPENING_CONCURRENCY) {
          const batch = Math.min(OPENING_CONCURRENCY, options.subscribers - opened);
          const results = await Promise.allSettled(
            Array.from({ length: batch }, () => openSubscriber(gateway.url, data.key, watched, deliveries, abort.signal)),
          );
          errors += results.filter((result) => result.status === 'rejected').length;
        }
        const held = options.subscribers - errors;
        log(
          `  ${options.name}: ${held.toLocaleString('en')} subscriptions open in ${Math.round(performance.now() - opening)} ms${errors ? ` (${errors} refused)` : ''}`,
        );

        const started = performance.now();
        const cpuBefore = cpuMs(gateway.pid);
        for (const [index, orderId] of orderIds.entries()) {
          const paid = await call(gateway.url, '/graphql', BENCH_ADMIN_TOKEN, { query: SANDBOX_PAY, variables: { orderId } });
          if (paid.data?.sandboxPay?.outcome !== 'paid') errors += 1;
          const due = started + ((index + 1) * 1000) / options.perSecond;
          await sleep(Math.max(0, due - performance.now()));
        }
        const seconds = (performance.now() - started) / 1000;
        const expected = options.changes * held;
        const deadline = Date.now() + STRAGGLER_WAIT_MS;
        while (deliveries.delays.length < expected && Date.now() < deadline) await sleep(50);
        const gatewayFigures = figuresOf(deliveries, expected, seconds, errors, null);
        gatewayFigures.rssMaxMB = rss.stop();
        const cpuAfter = cpuMs(gateway.pid);
        // The gateway's CPU per delivery (the payments' own work included): where its time goes.
        if (cpuBefore !== null && cpuAfter !== null)
          gatewayFigures.cpuMsPerRequest = Math.round(((cpuAfter - cpuBefore) / Math.max(gatewayFigures.requests, 1)) * 1000) / 1000;
        log(
          `  ${options.name}: ${gatewayFigures.requests.toLocaleString('en')} of ${expected.toLocaleString('en')} deliveries, gateway CPU ${gatewayFigures.cpuMsPerRequest} ms per delivery`,
        );
        abort.abort();
        // Under --cpu-prof: the profile (written on exit) holds the deliveries, not the floor's idle time.
        if (profiling) await servers.stop('gateway');

        const floor = await redisFloor(options);
        log(`  baseline ${floorName}: p50 ${floor.p50} ms, p99 ${floor.p99} ms`);
        const invalid = [
          (gatewayFigures.failedAnswers > 0 || errors > 0) && `gateway: ${gatewayFigures.failedAnswers} deliveries missed of ${expected}, ${errors} errors`,
          floor.failedAnswers > 0 && `baseline: ${floor.failedAnswers} deliveries missed`,
        ]
          .filter(Boolean)
          .join('; ');
        return {
          scenario: options.name,
          baseline: floorName,
          gateway: gatewayFigures,
          floor,
          ...comparedWithFloor(gatewayFigures, floor),
          target: `p99 <=${options.target.maxMs} ms`,
          met: !invalid && gatewayFigures.p99 <= options.target.maxMs,
          ...(invalid && { invalid }),
        };
      } finally {
        rss.stop();
        abort.abort();
      }
    },
  };
}
