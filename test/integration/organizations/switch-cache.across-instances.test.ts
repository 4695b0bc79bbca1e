/**
 * Two gateways sharing one Redis and one database (two instances of one deployment): a kill switch
 * turned off through one is obeyed by the other on its next creations, although the other had the
 * switches in its cache. Within a second: the bus, not the cache's expiry (SWITCH_CACHE_TTL_MS).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSwitch } from '../../../src/domain/operations.js';
import { SWITCH_CACHE_TTL_MS } from '../../../src/domain/organizations/switches.js';
import { startGateway, transactionBody, type TestGateway } from '../../support/gateway.js';
import { waitFor } from '../../support/processes.js';

let first: TestGateway;
let second: TestGateway;
beforeAll(async () => {
  const redisKeyPrefix = `test:gw:${randomBytes(4).toString('hex')}:`;
  first = await startGateway({ redis: true, redisKeyPrefix });
  second = await startGateway({ redis: true, redisKeyPrefix });
  second.ctx.db = first.ctx.db;
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const createOn = async (gateway: TestGateway, key: string, methods: string[]) =>
  (await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ method_of_payment: methods }) })).status;
/** Pub/sub delivers in milliseconds; a second is far below the cache's own expiry. */
const eventually = (check: () => Promise<boolean>) => waitFor(check, 1_000);

describe('kill switches across instances', () => {
  it('expire on their own later than the bus delivers (else this file proves nothing)', () => {
    expect(SWITCH_CACHE_TTL_MS).toBeGreaterThan(2_000);
  });

  it('a method switched off through one instance is refused by the other, and back on is accepted', async () => {
    const { key } = await first.merchant();
    expect(await createOn(second, key, ['wave'])).toBe(200); // the second instance has cached the switches
    await setSwitch(first.ctx, first.operator, 'wave', false);
    try {
      await eventually(async () => (await createOn(second, key, ['wave'])) === 503);
      expect(await createOn(second, key, ['wave', 'orange_money'])).toBe(200);
    } finally {
      await setSwitch(first.ctx, first.operator, 'wave', true);
    }
    await eventually(async () => (await createOn(second, key, ['wave'])) === 200);
  });

  it('transaction creation switched off through one instance is refused by the other', async () => {
    const { key } = await first.merchant();
    expect(await createOn(second, key, ['orange_money'])).toBe(200);
    await setSwitch(first.ctx, first.operator, 'transactions', false);
    try {
      await eventually(async () => (await createOn(second, key, ['orange_money'])) === 503);
    } finally {
      await setSwitch(first.ctx, first.operator, 'transactions', true);
    }
  });
});
