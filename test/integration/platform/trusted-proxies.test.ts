/**
 * TRUSTED_PROXIES: behind a reverse proxy the socket's address is the proxy's, so every customer
 * would share one rate-limit bucket. Only a trusted proxy's X-Forwarded-For is believed; the client
 * is the right-most address in it that is not a trusted proxy, and that is the address the limiter
 * counts and the log shows. From any other peer the header is ignored (anyone can send it).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { buildApp } from '../../../src/http/app.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway({ rateLimit: { max: 2, windowMs: 60_000 } });
const logLines: Array<Record<string, any>> = [];
const apps: FastifyInstance[] = [];

/** An API origin over the test gateway's context, trusting `trustedProxies`, with its log captured. */
async function apiTrusting(trustedProxies: string[]): Promise<string> {
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  const app = await buildApp({
    ctx: gateway.ctx,
    adminToken: gateway.adminToken,
    logger,
    ready: async () => ({ database: true, coordinator: true }),
    trustedProxies,
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

let behindProxy: string;
let exposed: string;
beforeAll(async () => {
  // The test's requests come from 127.0.0.1: the proxy in the first case, a stranger in the second.
  behindProxy = await apiTrusting(['127.0.0.1', '10.0.0.0/8']);
  exposed = await apiTrusting(['10.0.0.0/8']);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

const list = (base: string, forwardedFor?: string, requestId?: string) =>
  fetch(`${base}/api/v2/transactions`, {
    headers: { ...(forwardedFor && { 'x-forwarded-for': forwardedFor }), ...(requestId && { 'x-request-id': requestId }) },
  });

describe('TRUSTED_PROXIES', () => {
  it('behind a trusted proxy, two clients named by X-Forwarded-For get separate rate-limit buckets', async () => {
    const first = [];
    for (let i = 0; i < 3; i++) first.push((await list(behindProxy, '198.51.100.1')).status);
    expect(first).toEqual([401, 401, 429]);
    // Another client behind the same proxy still has its whole budget.
    const second = await list(behindProxy, '198.51.100.2');
    expect(second.status).toBe(401);
    expect(second.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('takes the right-most address that is not a trusted proxy: an address the client forged further left is not its identity', async () => {
    // The client 198.51.100.3 went through 10.0.0.7 (trusted), then the proxy at 127.0.0.1; it
    // forged "203.0.113.50" in front. Its bucket is 198.51.100.3's, whatever it puts on the left.
    expect((await list(behindProxy, '203.0.113.50, 198.51.100.3, 10.0.0.7')).headers.get('ratelimit-remaining')).toBe('1');
    expect((await list(behindProxy, '203.0.113.51, 198.51.100.3, 10.0.0.7')).headers.get('ratelimit-remaining')).toBe('0');
    expect((await list(behindProxy, '203.0.113.52, 198.51.100.3, 10.0.0.7')).status).toBe(429);
  });

  it('from an untrusted peer, a forged X-Forwarded-For is ignored: every forged address shares the socket address bucket', async () => {
    expect((await list(exposed, '198.51.100.10')).status).toBe(401);
    expect((await list(exposed, '198.51.100.11')).status).toBe(401);
    const third = await list(exposed, '198.51.100.12');
    expect(third.status).toBe(429);
  });

  it('logs the client address it counted, not the proxy one', async () => {
    await list(behindProxy, '198.51.100.20, 10.0.0.9', '7a1c0e5d00000001');
    await list(exposed, '198.51.100.21', '7a1c0e5d00000002');
    const remoteOf = (id: string) => logLines.find((line) => line.reqId === id && line.req)?.req.remoteAddress;
    expect(remoteOf('7a1c0e5d00000001')).toBe('198.51.100.20');
    expect(remoteOf('7a1c0e5d00000002')).toBe('127.0.0.1');
  });
});

describe('TRUSTED_PROXIES configuration', () => {
  it('is empty by default and takes addresses, CIDRs and range names separated by commas or spaces', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.5, 10.1.0.0/16 2001:db8::/32,loopback' }).trustedProxies).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      '2001:db8::/32',
      'loopback',
    ]);
  });

  it.each(['nginx', '10.0.0.0/33', '10.0.0.256', '2001:db8::/129', '10.0.0.0/8/8', '10.0.0.0/'])('refuses "%s" with a line naming the variable', (value) => {
    expect(() => loadConfig({ TRUSTED_PROXIES: value })).toThrow(
      `TRUSTED_PROXIES must list addresses or CIDRs of your reverse proxies, separated by commas (e.g. "10.0.0.5, 10.1.0.0/16", or "loopback"); not understood: "${value}"`,
    );
  });
});
