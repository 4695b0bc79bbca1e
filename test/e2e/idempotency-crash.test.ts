/**
 * A gateway killed (SIGKILL) after its change committed and before it answered: the client saw
 * no answer and retries with the same Idempotency-Key on a fresh process. The retry must replay
 * the committed answer, and the database must hold exactly one transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../support/callers.js';
import { cloneTemplateDatabase, transactionBody } from '../support/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../support/processes.js';
import { createApiKey, createOrganization } from '../../src/domain/operations.js';
import { openDatabase, type Database } from '../../src/infra/prisma/database.js';
import { systemClock, type GatewayContext } from '../../src/domain/context.js';
import { createSandboxProvider } from '../../src/infra/providers/sandbox.js';
import { createLocalCoordination } from '../../src/infra/local/coordination.js';

let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
let db: Database;
let key: string;
let organizationId: string;
const processes: GatewayProcess[] = [];

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  db = await openDatabase({ url: database.url, poolMax: 2 });
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const ctx: GatewayContext = {
    db: db.prisma,
    clock: systemClock,
    coordination: createLocalCoordination({ rateLimit: { max: 1000, windowMs: 60_000 } }),
    settings: { checkoutPublicUrl: 'http://127.0.0.1:1' },
    log: silent,
    provider: createSandboxProvider({ db: db.prisma }),
  };
  const organization = await createOrganization(ctx, OPERATOR, { name: 'Crash test' });
  organizationId = organization.id;
  key = (await createApiKey(ctx, OPERATOR, organization.id, 'checkout')).secret;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(processes.map((gateway) => gateway.stop()));
  await db?.close();
  await database?.drop();
});

const start = async (nodeArgs: string[] = []) => {
  const gateway = await startGatewayProcess({ DATABASE_URL: database.url, GATEWAY_ADMIN_TOKEN: 'gw_op_crash_test_token_0123456789' }, nodeArgs);
  processes.push(gateway);
  return gateway;
};

describe('a crash between commit and answer', () => {
  it('leaves the change with its completed key; the retry replays it and creates nothing more', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'crash-1' };
    const body = JSON.stringify(transactionBody());

    const doomed = await start(['--import', './test/support/crash-after-commit.ts']);
    const lost = await fetch(`${doomed.url}/api/v2/transactions`, { method: 'POST', headers, body }).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    );
    expect(lost).toBe('no answer');
    expect((await doomed.exited).signal).toBe('SIGKILL');

    const committed = await db.prisma.transaction.findMany({ where: { organizationId } });
    expect(committed).toHaveLength(1);
    const keyRow = await db.prisma.idempotencyKey.findUniqueOrThrow({ where: { organizationId_key: { organizationId, key: 'crash-1' } } });
    expect(keyRow).toMatchObject({ state: 'completed', responseStatus: 200 });

    const fresh = await start();
    const retried = await fetch(`${fresh.url}/api/v2/transactions`, { method: 'POST', headers, body });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect((await retried.json()).order_id).toBe(committed[0]!.id);
    expect(await db.prisma.transaction.count({ where: { organizationId } })).toBe(1);
  }, 120_000);
});
