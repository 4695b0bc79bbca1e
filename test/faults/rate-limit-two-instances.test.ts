/**
 * The exact rate limit across instances (issue 29 item 3), proven where the overshoot was found:
 * two gateway PROCESSES (dist/main.js) sharing PostgreSQL and a redis-server of the test's own (no
 * other file's flush can reach its counters), at the spec's limit (100 per 60 s per IP and
 * endpoint). 150 requests arriving at once, split between them, get exactly 100 answers that are
 * not 429; a second burst in the same window is refused on both. Each process leases slots from
 * Redis ahead (leasedRateLimiter), so the count is only exact if the leases are.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, statusCounts, useCluster, type Instance } from '../support/faults/cluster.js';

// What is tested is the lease accounting, so Redis gets a deadline a loaded test machine cannot
// miss: past the default 150 ms an instance limits alone, which an outage is allowed to do
// (faults/redis-outage), and once on a machine loaded by four test workers one did.
const cluster = useCluster({ ownRedis: true, env: { RATE_LIMIT_MAX: '100', RATE_LIMIT_WINDOW_MS: '60000', REDIS_CALL_TIMEOUT_MS: '2000' } });
let instances: Instance[];
let key: string;

beforeAll(async () => {
  instances = await Promise.all([cluster.start('a'), cluster.start('b')]);
  ({ key } = await cluster.gateway.merchant());
}, 90_000);

/** `count` requests at once to one endpoint, alternating between the instances; their statuses per instance. */
async function burst(count: number, path = '/api/v2/transactions?limit=1'): Promise<number[][]> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => call(instances[i % 2]!, 'GET', path, { key }).then((answer) => ({ instance: i % 2, status: answer.status }))),
  );
  return instances.map((_, index) => answers.filter((answer) => answer.instance === index).map((answer) => answer.status));
}

describe('two gateway processes sharing Redis', () => {
  it('150 requests at once, split between them, get exactly 100 answers that are not 429; the next burst only 429', async () => {
    // Warm processes first (the key's authentication cached, the code compiled), on another
    // endpoint and so another budget. Once, in a fresh-clone CI run on a loaded machine, cold
    // processes got 89 answers, not 100: slots one instance leases ahead are spent within
    // LEASE_MS (1 s) or given back, and while they are held the other instance is refused (the
    // strict side; never more than the limit). Warm, the burst takes ~0.3-0.5 s, not ~0.4-0.8.
    expect(new Set((await burst(20, `/api/v2/transactions/${randomUUID()}`)).flat())).toEqual(new Set([404]));
    const statuses = await burst(150);
    expect(statuses.map((one) => one.length)).toEqual([75, 75]);
    const all = statuses.flat();
    // Every request was answered (no lost connection, no 5xx): 200 or 429.
    expect(new Set(all)).toEqual(new Set([200, 429]));
    // On a failure, whether an instance decided alone (Redis late past even this deadline) says
    // which side erred: the lease accounting, or the fallback an outage is allowed.
    const decidedAlone = instances.flatMap((instance) =>
      instance
        .output()
        .split('\n')
        .filter((line) => /rate limiter/i.test(line)),
    );
    expect(
      all.filter((status) => status !== 429),
      `answers per instance: ${JSON.stringify(statuses.map((one) => statusCounts(one.map((status) => ({ status })))))}; ${decidedAlone.join(' | ') || 'no instance decided alone'}`,
    ).toHaveLength(100);

    const again = await burst(20);
    expect(again.flat()).toEqual(Array(20).fill(429));
    expect(cluster.running()).toHaveLength(2);
  });
});
