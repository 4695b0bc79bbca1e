/** The pipeline's rate limit (per IP and endpoint, through Redis) applies to v1 as to v2. */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';
import { expectDetail, v1 } from './helpers.js';

const gateway = useGateway({ redis: true, rateLimit: { max: 2, windowMs: 60_000 } });

describe('rate limit on REST v1', () => {
  it('refuses past the limit with 429 in {Detail}, Retry-After, RateLimit and the v1 headers; each endpoint counts apart', async () => {
    const { key } = await gateway.merchant();
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await v1.list(gateway, key)).status);
    expect(statuses).toEqual([200, 200]);
    const refused = await v1.list(gateway, key);
    expectDetail(refused, 429, 'Rate limit exceeded. Try again later.');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-limit')).toBe('2');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    // Another v1 endpoint, and the v2 twin, have budgets of their own.
    expect((await v1.create(gateway, key)).status).toBe(200);
    expect((await gateway.rest('GET', '/api/v2/transactions', { key })).status).toBe(200);
  });

  it('refuses before authentication, like v2 (a caller without a key is counted too)', async () => {
    expect((await v1.account(gateway, undefined)).status).toBe(401);
    expect((await v1.account(gateway, undefined)).status).toBe(401);
    expectDetail(await v1.account(gateway, undefined), 429, 'Rate limit exceeded. Try again later.');
  });
});
