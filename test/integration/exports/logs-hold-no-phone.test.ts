/**
 * The exported rows carry phone numbers (the merchant's own data), but no log line does: a gateway
 * process at LOG_LEVEL=info logs each export request with its phone filter redacted, and an export
 * its client abandons mid-stream (logged as an error of the response stream) quotes no row.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SERVER_KEY, useGateway } from '../../support/gateway.js';
import { startGatewayProcess, waitFor, type GatewayProcess } from '../../support/processes.js';

const gateway = useGateway();
let instance: GatewayProcess;
let key: string;
/** Distinctive subscriber digits: any of them in the log is a leak. */
const PHONE_DIGITS = '771239876';
const ROWS = 5_000;

beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'read' });
  key = merchant.key;
  // Enough rows that an export is still streaming when its client goes away.
  await gateway.ctx.db.$executeRawUnsafe(
    `INSERT INTO "Transaction" (id, "organizationId", amount, "methodOfPayment", "customerFirstName", "customerPhone", "successUrl", "errorUrl", "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1::uuid, 1000, '{wave}'::"PaymentMethod"[], 'Client ' || i, '+221' || $2 || lpad(i::text, 5, '0'),
            'https://shop.example.sn/ok', 'https://shop.example.sn/ko', now() - i * interval '1 second', now()
     FROM generate_series(1, $3::int) i`,
    merchant.organization.id,
    PHONE_DIGITS,
    ROWS,
  );
  instance = await startGatewayProcess({
    DATABASE_URL: gateway.databaseUrl,
    LOG_LEVEL: 'info',
    GATEWAY_ADMIN_TOKEN: 'gw_op_exports_logs_test_0123456789abcdef',
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
  });
}, 90_000);
afterAll(async () => {
  await instance?.stop();
});

describe('the log of an export', () => {
  it('holds the requests, their phone filters redacted, and no phone of the rows', async () => {
    const whole = await fetch(`${instance.url}/exports/transactions.csv?customer_phone=%2B221${PHONE_DIGITS}00001`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(whole.status).toBe(200);
    expect(await whole.text()).toContain(`+221${PHONE_DIGITS}00001`);

    // A client that takes the first chunk and goes away.
    await new Promise<void>((resolve, reject) => {
      const request = http.get(
        `${instance.url}/exports/transactions.csv?search=${PHONE_DIGITS}`,
        { headers: { authorization: `Bearer ${key}` } },
        (response) => {
          response.once('data', () => {
            request.destroy();
            resolve();
          });
        },
      );
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    });

    await waitFor(async () => instance.output().includes('"url":"/exports/transactions.csv?search=[redacted]"'), 5_000, instance.output);
    const log = instance.output();
    expect(log).toContain('"url":"/exports/transactions.csv?customer_phone=[redacted]"');
    expect(log).not.toContain(PHONE_DIGITS);
  });
});
