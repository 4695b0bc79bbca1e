/**
 * No phone number and no credential in the log: a real gateway process at LOG_LEVEL=info (every
 * request logged with its URL) is sent phones in the query (`customer_phone`, `recipient_phone` —
 * the spec's payout recovery query —, `phone`, `search`, an unnamed parameter) and API keys where
 * clients put them by mistake (`?api_key=`, `?token=`, `?access_token=`, `?secret=`, under any
 * name, in an X-Api-Key header, in the path), on REST v2, REST v1, GraphQL and an unknown route.
 * The captured output shows the requests were logged, with "[redacted]" in place of the phones,
 * and contains neither the phone digits nor any part of the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SERVER_KEY, useGateway } from '../../support/gateway.js';
import { startGatewayProcess, waitFor, type GatewayProcess } from '../../support/processes.js';

const gateway = useGateway();
let instance: GatewayProcess;
let key: string;

/** Distinctive digits: any of them in the log is a leak (the subscriber part, without the +221 prefix). */
const PHONES = ['771230001', '771230002', '771230003', '771230004', '771230005', '771230006', '771230007'];

beforeAll(async () => {
  ({ key } = await gateway.merchant({ scope: 'read' }));
  instance = await startGatewayProcess({
    DATABASE_URL: gateway.databaseUrl,
    LOG_LEVEL: 'info',
    GATEWAY_ADMIN_TOKEN: 'gw_op_logs_redaction_test_0123456789abcdef',
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
  });
}, 90_000);
afterAll(async () => {
  await instance?.stop();
});

describe('the log of a gateway process at LOG_LEVEL=info', () => {
  it('carries the requests with phones redacted and credentials dropped, and neither phone digits nor key', async () => {
    const bearer = { authorization: `Bearer ${key}` };
    const calls: Array<[string, RequestInit, number]> = [
      [`/api/v2/payouts?recipient_phone=%2B221${PHONES[0]}&page=1`, { headers: bearer }, 200],
      [`/api/v2/transactions?customer_phone=221${PHONES[1]}&api_key=${key}&limit=5`, { headers: bearer }, 200],
      [`/api/v2/transactions?search=${PHONES[2]}&access_token=${encodeURIComponent(key)}`, { headers: bearer }, 200],
      [`/api/v1/transaction/get-transactions?phone=%2B221%20${PHONES[3]}&token=${key}`, { headers: bearer }, 200],
      [`/graphql?query=%7B__typename%7D&api_key=${key}&msisdn=${PHONES[4]}`, { headers: { ...bearer, 'x-api-key': key } }, 200],
      [`/nowhere?recipient_phone=${PHONES[5]}&secret=${key}`, {}, 404],
      [`/api/v2/transactions?api_key=${key}&ref=${PHONES[6]}&whatever=${key}`, {}, 401],
      [`/api/v2/${key}`, { headers: bearer }, 404],
    ];
    for (const [path, init, status] of calls) {
      expect((await fetch(`${instance.url}${path}`, init)).status, path).toBe(status);
    }

    // Every request was logged (so the absence below means something), its URL redacted.
    await waitFor(async () => instance.output().includes('/api/v2/[redacted]'), 5_000, instance.output);
    const log = instance.output();
    expect(log).toContain('"url":"/api/v2/payouts?recipient_phone=[redacted]&page=1"');
    expect(log).toContain('"url":"/api/v2/transactions?customer_phone=[redacted]&limit=5"');
    expect(log).toContain('"url":"/api/v2/transactions?search=[redacted]"');
    expect(log).toContain('"url":"/api/v1/transaction/get-transactions?phone=[redacted]"');
    expect(log).toContain('"url":"/graphql?query=%7B__typename%7D&msisdn=[redacted]"');
    expect(log).toContain('"url":"/nowhere?recipient_phone=[redacted]"');
    expect(log).toContain('"url":"/api/v2/transactions?ref=[redacted]"');

    for (const phone of PHONES) expect(log).not.toContain(phone);
    const secretPart = key.slice('gw_sk_'.length);
    expect(log).not.toContain(secretPart.slice(0, 12));
    expect(log).not.toContain(encodeURIComponent(secretPart).slice(0, 12));
    expect(log).not.toMatch(/authorization|x-api-key/i);
  }, 60_000);
});
