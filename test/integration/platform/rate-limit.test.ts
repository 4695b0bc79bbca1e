/**
 * The spec's limit (per client IP, per endpoint, sliding window), counted through Redis so that
 * instances of one deployment share it. Small limits and windows keep the test fast.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createLocalCoordination } from '../../../src/infra/local/coordination.js';
import { startGateway, transactionBody, type TestGateway } from '../../support/gateway.js';
import { TypenameDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { SIGN_IN_PER_ACCOUNT } from '../../../src/domain/users/throttle.js';
import { DashboardBrowser, PASSWORD, newEmail } from '../../support/dashboard.js';

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});
async function gatewayWith(options: Parameters<typeof startGateway>[0]): Promise<TestGateway> {
  const gateway = await startGateway(options);
  gateways.push(gateway);
  return gateway;
}

describe('rate limit', () => {
  it('refuses the request past the limit with 429, Retry-After and RateLimit headers, before authentication', async () => {
    const gateway = await gatewayWith({ redis: true, rateLimit: { max: 3, windowMs: 60_000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await gateway.rest('GET', '/api/v2/transactions')).status);
    expect(statuses).toEqual([401, 401, 401]);

    const refused = await gateway.rest('GET', '/api/v2/transactions');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded. Try again later.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('counts each endpoint separately, and every order id of a route as one endpoint', async () => {
    const gateway = await gatewayWith({ redis: true, rateLimit: { max: 2, windowMs: 60_000 } });
    const { key } = await gateway.merchant();
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const gets = [];
    for (const id of ids) gets.push((await gateway.rest('GET', `/api/v2/transactions/${id}`, { key })).status);
    expect(gets).toEqual([404, 404, 429]);
    // Another endpoint still has its own budget.
    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });
    expect(created.status).toBe(200);
    expect(created.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('is shared by two instances using the same Redis', async () => {
    const redisKeyPrefix = `test:shared:${randomBytes(4).toString('hex')}:`;
    const first = await gatewayWith({ redis: true, redisKeyPrefix, rateLimit: { max: 2, windowMs: 60_000 } });
    const second = await gatewayWith({ redis: true, redisKeyPrefix, rateLimit: { max: 2, windowMs: 60_000 } });
    expect((await first.rest('GET', '/api/v2/transactions')).status).toBe(401);
    expect((await second.rest('GET', '/api/v2/transactions')).status).toBe(401);
    expect((await first.rest('GET', '/api/v2/transactions')).status).toBe(429);
    expect((await second.rest('GET', '/api/v2/transactions')).status).toBe(429);
  });

  it('lets requests through again as the window slides', async () => {
    const gateway = await gatewayWith({ rateLimit: { max: 1, windowMs: 400 } });
    expect((await gateway.rest('GET', '/api/v2/transactions')).status).toBe(401);
    expect((await gateway.rest('GET', '/api/v2/transactions')).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await gateway.rest('GET', '/api/v2/transactions')).status).toBe(401);
  });

  it('applies to GraphQL as one endpoint', async () => {
    const gateway = await gatewayWith({ rateLimit: { max: 1, windowMs: 60_000 } });
    const { key } = await gateway.merchant();
    expect((await graphqlTyped(gateway, TypenameDocument, {}, key)).status).toBe(200);
    const refused = await graphqlTyped(gateway, TypenameDocument, {}, key);
    // GraphQL renders its own refusals: a GraphQL error, not the REST body.
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: [{ message: 'Rate limit exceeded. Try again later.', extensions: { code: 'RATE_LIMITED', status: 429 } }] });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('lets requests through, and logs a warning, when the coordinator fails', async () => {
    const warn = vi.fn();
    const gateway = await gatewayWith({ rateLimit: { max: 1, windowMs: 60_000 }, log: { info: () => undefined, warn, error: () => undefined } });
    const broken = createLocalCoordination({ rateLimit: { max: 1, windowMs: 60_000 } });
    broken.rateLimiter.hit = async () => {
      throw new Error('redis is down');
    };
    gateway.ctx.coordination = broken;
    const { key } = await gateway.merchant();
    for (let i = 0; i < 3; i++) expect((await gateway.rest('GET', '/api/v2/transactions', { key })).status).toBe(200);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ endpoint: 'GET /api/v2/transactions' }), 'rate limiter unavailable: request let through');
  });

  it('is off for the API when RATE_LIMIT_ENABLED=false (a proxy enforces it), while sign-in throttling stays on', async () => {
    const gateway = await gatewayWith({ rateLimit: { max: 2, windowMs: 60_000 }, apiRateLimit: false });
    const { key } = await gateway.merchant();
    for (let i = 0; i < 4; i++) {
      const read = await gateway.rest('GET', '/api/v2/transactions', { key });
      expect(read.status).toBe(200);
      expect(read.headers.get('ratelimit-limit')).toBeNull();
    }
    expect((await graphqlTyped(gateway, TypenameDocument, {}, key)).status).toBe(200);
    expect((await graphqlTyped(gateway, TypenameDocument, {}, key)).status).toBe(200);
    expect((await graphqlTyped(gateway, TypenameDocument, {}, key)).status).toBe(200);

    const email = newEmail('throttled');
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= SIGN_IN_PER_ACCOUNT.max; attempt += 1) statuses.push((await new DashboardBrowser(gateway).signIn(email, PASSWORD)).status);
    expect(statuses.at(-1)).toBe(429);
  });

  it('reads RATE_LIMIT_ENABLED strictly: on unless false/0/no/off, and a start refused on anything else', () => {
    expect(loadConfig({}).rateLimit.enabled).toBe(true);
    expect(loadConfig({ RATE_LIMIT_ENABLED: 'true' }).rateLimit.enabled).toBe(true);
    for (const off of ['false', '0', 'no', 'OFF']) expect(loadConfig({ RATE_LIMIT_ENABLED: off }).rateLimit.enabled).toBe(false);
    expect(() => loadConfig({ RATE_LIMIT_ENABLED: 'disabled' })).toThrow('RATE_LIMIT_ENABLED must be true or false (got "disabled")');
  });
});
