/**
 * Payout batches (issue 31): a batch of `items` payouts through the sandbox, against the payout
 * path's own floor for ONE organisation: single payouts sent one after the other (one payout per
 * organisation at a time, so that is as fast as one organisation's payouts can go), in the same
 * run, on the same gateway. Reported: items/s of each and their ratio, the batch's whole time
 * (validation of the draft included), and the gateway's RSS growth while it runs (memory flat in
 * the number of items: the runner holds one item at a time).
 */
import { rssMB, sampleRss } from './processes.js';
import type { BacklogContext, BacklogScenario, Figures, Row } from './shapes.js';

export interface PayoutBatchScenarioOptions {
  name: string;
  items: number;
  /** Single payouts sent one by one for the floor. */
  floorPayouts: number;
  /** Batch items/s as a share of the sequential single payouts'. */
  minRatio: number;
}

/** Distinct Senegal wallets ending in 2 (the sandbox pays those: docs/sandbox.md). */
const phoneOf = (index: number): string => `+2217${String(10_000_002 + index * 10).padStart(8, '0')}`;

async function post(url: string, key: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const figures = (perSecond: number, requests: number, failed: number, rssMaxMB: number | null): Figures => ({
  reqPerSec: Math.round(perSecond * 10) / 10,
  p50: 0,
  p99: 0,
  requests,
  failedAnswers: failed,
  errors: 0,
  timeouts: 0,
  statusCodes: {},
  rssMaxMB,
  cpuMsPerRequest: null,
});

export function payoutBatchScenario(options: PayoutBatchScenarioOptions): BacklogScenario {
  const floorName = `${options.floorPayouts} single payouts of one organisation, one after the other`;
  return {
    kind: 'backlog',
    name: options.name,
    target: { kind: 'throughput', minPerSecond: 0, maxSeconds: 600 },
    budgetMs: 300_000,
    async run({ servers, data, log }: BacklogContext): Promise<Row> {
      const gateway = await servers.get('gateway');
      const key = data.payoutKeys.at(-1)!;
      // The floor: one organisation's single payouts, each answered before the next is sent.
      let floorFailed = 0;
      const floorStarted = performance.now();
      for (let index = 0; index < options.floorPayouts; index += 1) {
        const answer = await post(gateway.url, key, '/api/v2/payouts', {
          selected_payment_method: 'wave',
          amount: 100,
          recipient: { phone: phoneOf(90_000 + index) },
          reason: 'bench floor',
        });
        if (answer.status !== 200) floorFailed += 1;
      }
      const floorPerSecond = options.floorPayouts / ((performance.now() - floorStarted) / 1000);

      // The batch: drafted, started, run by the gateway's own runner; done when it is no longer running.
      const items = Array.from({ length: options.items }, (_, index) => ({
        selected_payment_method: index % 2 ? 'wave' : 'orange_money',
        amount: 100 + (index % 50),
        recipient: { first_name: 'Driver', last_name: String(index), phone: phoneOf(index) },
        reason: 'bench batch',
      }));
      const rssBefore = rssMB(gateway.pid);
      const rss = sampleRss(gateway.pid, 250);
      const started = performance.now();
      const draft = await post(gateway.url, key, '/api/v2/payout-batches', { items });
      if (draft.status !== 200) throw new Error(`the batch draft answered ${draft.status}: ${JSON.stringify(draft.body).slice(0, 300)}`);
      const start = await post(gateway.url, key, `/api/v2/payout-batches/${draft.body.id}/start`, {});
      if (start.status !== 200) throw new Error(`the batch start answered ${start.status}: ${JSON.stringify(start.body).slice(0, 300)}`);
      let batch: any = start.body;
      while (batch.status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const response = await fetch(`${gateway.url}/api/v2/payout-batches/${draft.body.id}`, { headers: { authorization: `Bearer ${key}` } });
        batch = await response.json();
      }
      const seconds = (performance.now() - started) / 1000;
      const rssMax = rss.stop();
      const perSecond = options.items / seconds;
      const ratio = Math.round((perSecond / Math.max(floorPerSecond, 0.01)) * 100) / 100;
      log(
        `  ${options.items} items in ${seconds.toFixed(1)} s (${perSecond.toFixed(1)}/s, ${batch.status}, ${JSON.stringify(batch.counts)}); floor ${floorPerSecond.toFixed(1)}/s; RSS ${rssBefore} -> max ${rssMax} MB`,
      );
      const invalid = [
        batch.status !== 'completed' && `the batch ended ${batch.status}: ${JSON.stringify(batch.counts)}`,
        floorFailed > 0 && `${floorFailed} floor payouts failed`,
      ]
        .filter(Boolean)
        .join('; ');
      return {
        scenario: options.name,
        baseline: floorName,
        gateway: figures(perSecond, options.items, batch.counts?.failed ?? 0, rssMax),
        floor: figures(floorPerSecond, options.floorPayouts, floorFailed, null),
        ratioReqPerSec: ratio,
        ratioP99: 0,
        addedP99Ms: 0,
        target: `items/s >= ${options.minRatio} x floor`,
        met: !invalid && ratio >= options.minRatio,
        ...(invalid && { invalid }),
      };
    },
  };
}
