/** GET /metrics: Prometheus text with per-route-template request counts, latency, 429s and process health. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway({ metrics: true, rateLimit: { max: 3, windowMs: 60_000 } });

const scrape = async () => {
  const response = await fetch(`${gateway.url}/metrics`);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};
/** The value of one series, or undefined. */
const seriesValue = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('/metrics', () => {
  it('counts requests by route template and status, never by raw path', async () => {
    const { key } = await gateway.merchant();
    const unknown = randomUUID();
    await gateway.rest('GET', `/api/v2/transactions/${unknown}`, { key });
    await gateway.rest('GET', `/api/v2/transactions/${randomUUID()}`, { key });
    const text = await scrape();
    expect(seriesValue(text, 'http_requests_total{method="GET",route="/api/v2/transactions/:order_id",status="404"}')).toBe(2);
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.05",method="GET",route="/api/v2/transactions/:order_id",status="404"}');
    expect(text).not.toContain(unknown);
  });

  it('counts rate-limit rejections per route', async () => {
    const { key } = await gateway.merchant();
    for (let i = 0; i < 5; i++) await gateway.rest('GET', '/api/v2/transactions', { key });
    expect(seriesValue(await scrape(), 'rate_limit_rejections_total{route="/api/v2/transactions"}')).toBe(2);
  });

  it('reports the process (resident memory, event-loop lag) and the database pool', async () => {
    const text = await scrape();
    expect(seriesValue(text, 'db_pool_connections{state="total"}')).toBeGreaterThan(0);
    expect(seriesValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });
});
