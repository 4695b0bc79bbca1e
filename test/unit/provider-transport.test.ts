/**
 * The one provider transport (src/infra/providers/transport.ts) against a real local HTTP server:
 * every outcome classified once, redirects never followed, answers bounded even when chunked, a
 * 429's Retry-After honoured within the deadline, one log event per call without query or headers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combinedHealth, keepsCustomersOut } from '../../src/domain/providerCalls/providerHealth.js';
import { createProviderTransport, retryAfterMsOf } from '../../src/infra/providers/transport.js';
import { freePort } from '../support/processes.js';

let server: Server;
let url = '';
let handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const logged: Array<{ fields: object; message?: string }> = [];
const log = {
  info: (fields: object, message?: string) => logged.push({ fields, message }),
  warn: (fields: object, message?: string) => logged.push({ fields, message }),
  error: (fields: object, message?: string) => logged.push({ fields, message }),
};
const request = (path: string, overrides: Partial<Parameters<ReturnType<typeof createProviderTransport>['send']>[0]> = {}) => ({
  provider: 'test',
  operation: 'probe',
  method: 'POST' as const,
  url: `${url}${path}`,
  headers: { authorization: 'Bearer secret-key', 'content-type': 'application/json' },
  body: JSON.stringify({ mobile: '+221770000000' }),
  timeoutMs: 3_000,
  maxBytes: 1_024,
  ...overrides,
});

describe('the provider transport', () => {
  it('2xx accepted; 4xx refused (401 flagged as credentials); 5xx and 408 unknown; one log event each, no secret, no query, no phone', async () => {
    const transport = createProviderTransport({ log });
    handler = (req, res) => {
      const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status'));
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'x' }));
    };
    logged.length = 0;
    expect(await transport.send(request('/a?status=200&mobile=221770000000'))).toMatchObject({ outcome: 'accepted', status: 200 });
    expect(await transport.send(request('/a?status=400'))).toMatchObject({ outcome: 'refused', status: 400, credentialsRefused: false });
    expect(await transport.send(request('/a?status=401'))).toMatchObject({ outcome: 'refused', status: 401, credentialsRefused: true });
    expect(transport.health.state()).toMatchObject({ healthy: false });
    expect(await transport.send(request('/a?status=503'))).toMatchObject({ outcome: 'unknown', status: 503 });
    expect(await transport.send(request('/a?status=408'))).toMatchObject({ outcome: 'unknown', status: 408 });
    expect(logged).toHaveLength(5);
    const text = JSON.stringify(logged);
    expect(text).not.toContain('secret-key');
    expect(text).not.toContain('770000000');
    expect(logged[0]!.fields).toMatchObject({ provider: 'test', operation: 'probe', path: '/a', outcome: 'accepted', status: 200 });
  });

  it('a refused connection is not sent; a timeout or the caller abort is unknown', async () => {
    const transport = createProviderTransport();
    const closed = await freePort();
    expect(await transport.send(request('/', { url: `http://127.0.0.1:${closed}/` }))).toMatchObject({ outcome: 'not_sent' });
    handler = () => undefined; // never answers
    expect(await transport.send(request('/hang', { timeoutMs: 200 }))).toMatchObject({ outcome: 'unknown', reason: 'no answer in time' });
    expect(await transport.send(request('/hang', { signal: AbortSignal.timeout(100) }))).toMatchObject({ outcome: 'unknown' });
  });

  it('never follows a redirect (our bearer key would go elsewhere)', async () => {
    const transport = createProviderTransport();
    handler = (req, res) => {
      if (req.url === '/elsewhere') return res.end('{}');
      res.writeHead(307, { location: '/elsewhere' }).end();
    };
    seen.length = 0;
    expect(await transport.send(request('/moved'))).toMatchObject({ outcome: 'unknown', status: 307 });
    expect(seen).toEqual(['POST /moved']);
  });

  it('bounds the answer, announced or chunked', async () => {
    const transport = createProviderTransport();
    handler = (req, res) => {
      if (req.url === '/announced') return res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      for (let i = 0; i < 10; i += 1) res.write('y'.repeat(500));
      res.end();
    };
    expect(await transport.send(request('/announced'))).toMatchObject({ outcome: 'unknown', reason: expect.stringMatching(/more than 1024/) });
    expect(await transport.send(request('/chunked'))).toMatchObject({ outcome: 'unknown', reason: expect.stringMatching(/more than 1024/) });
  });

  it("honours a 429's Retry-After within the deadline, and past it says not sent with the wait asked", async () => {
    const waits: number[] = [];
    const transport = createProviderTransport({ sleep: async (ms) => void waits.push(ms) });
    let limited = 1;
    handler = (_req, res) => {
      if (limited-- > 0) return res.writeHead(429, { 'retry-after': '2' }).end('{"code":"too-many-requests"}');
      res.end('{"ok":true}');
    };
    expect(await transport.send(request('/limited', { timeoutMs: 10_000 }))).toMatchObject({ outcome: 'accepted', body: { ok: true } });
    expect(waits).toEqual([2_000]);
    handler = (_req, res) => res.writeHead(429, { 'retry-after': '120' }).end();
    expect(await transport.send(request('/limited'))).toMatchObject({ outcome: 'not_sent', status: 429, retryAfterMs: 120_000 });
    expect(transport.health.state().healthy).toBe(true);
    expect(retryAfterMsOf('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT'))).toBe(60_000);
  });
});

describe('provider health', () => {
  it('down at once on refused credentials; down after 30 s of calls without an answer; a definite answer clears it; 429 is neither', async () => {
    const { ProviderHealthTracker } = await import('../../src/infra/providers/providerHealth.js');
    let now = 1_000_000;
    const health = new ProviderHealthTracker(() => now);
    health.record({ outcome: 'refused', status: 403, body: undefined, credentialsRefused: true });
    expect(health.state()).toMatchObject({ healthy: false, reason: expect.stringMatching(/HTTP 403/) });
    health.record({ outcome: 'accepted', status: 200, body: {} });
    expect(health.state().healthy).toBe(true);
    health.record({ outcome: 'not_sent', reason: 'ECONNREFUSED' });
    now += 29_000;
    health.record({ outcome: 'unknown', reason: 'no answer in time' });
    expect(health.state().healthy).toBe(true);
    now += 2_000;
    expect(health.state()).toMatchObject({ healthy: false, reason: expect.stringMatching(/has not answered since/) });
    health.record({ outcome: 'not_sent', reason: 'rate limited', status: 429 });
    expect(health.state().healthy).toBe(false);
    health.record({ outcome: 'refused', status: 400, body: {}, credentialsRefused: false });
    expect(health.state().healthy).toBe(true);
  });
});

describe('the checkout and a provider that is down', () => {
  const downSince = Date.parse('2026-11-27T10:00:00Z');
  const providerDown = (healthy: boolean) => ({
    clock: { now: () => new Date(downSince) },
    provider: {
      healthOf: (method: string) =>
        method === 'wave'
          ? { provider: 'wave', healthy, reason: healthy ? '' : 'unreachable', since: healthy ? null : new Date(downSince) }
          : { provider: 'sandbox', healthy: true, reason: '', since: null },
    },
  });

  it('keeps customers out, but for one trial customer per 30 s from when it went down (how its recovery is noticed)', () => {
    const ctx = providerDown(false) as unknown as Parameters<typeof keepsCustomersOut>[0];
    expect(keepsCustomersOut(ctx, 'wave', downSince + 1_000)).toBe(true);
    expect(keepsCustomersOut(ctx, 'wave', downSince + 29_999)).toBe(true);
    expect(keepsCustomersOut(ctx, 'wave', downSince + 30_000)).toBe(false);
    expect(keepsCustomersOut(ctx, 'wave', downSince + 30_001)).toBe(true);
    expect(keepsCustomersOut(ctx, 'wave', downSince + 59_999)).toBe(true);
    expect(keepsCustomersOut(ctx, 'wave', downSince + 60_000)).toBe(false);
    expect(keepsCustomersOut(ctx, 'orange_money', downSince + 1_000)).toBe(false);
  });

  it('never keeps them out of a healthy provider', () => {
    const ctx = providerDown(true) as unknown as Parameters<typeof keepsCustomersOut>[0];
    expect(keepsCustomersOut(ctx, 'wave', downSince)).toBe(false);
  });
});

describe("several instances' views of one provider, combined", () => {
  const at = (second: number) => new Date(Date.parse('2026-11-27T10:00:00Z') + second * 1_000);
  const down = (reason: string, since: number, lastFailed: number, lastAnswered: number | null = null) => ({
    healthy: false,
    reason,
    since: at(since),
    lastFailedAt: at(lastFailed),
    lastAnsweredAt: lastAnswered === null ? null : at(lastAnswered),
  });
  const up = (lastAnswered: number | null) => ({
    healthy: true,
    reason: '',
    since: null,
    lastAnsweredAt: lastAnswered === null ? null : at(lastAnswered),
    lastFailedAt: null,
  });

  it('down when one instance saw it down and none got an answer since its last failed call', () => {
    expect(combinedHealth([up(null), down('key revoked', 10, 40)])).toEqual({ healthy: false, reason: 'key revoked', since: at(10) });
    // An answer before that instance's last failure does not clear it.
    expect(combinedHealth([up(30), down('unreachable', 10, 40)])).toMatchObject({ healthy: false });
  });

  it("healthy again once any instance got a definite answer after the failing one's last failure", () => {
    expect(combinedHealth([up(41), down('unreachable', 10, 40)])).toEqual({ healthy: true, reason: '', since: null });
  });

  it('says the outage that began first when several are down', () => {
    expect(combinedHealth([down('unreachable', 20, 50), down('key revoked', 5, 45)])).toEqual({ healthy: false, reason: 'key revoked', since: at(5) });
    expect(combinedHealth([up(null)])).toEqual({ healthy: true, reason: '', since: null });
  });
});
