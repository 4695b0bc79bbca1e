/**
 * Two gateways sharing one Redis (two instances of one deployment): a key or an operator token
 * revoked, or an organisation blocked, through one is refused by the other on its next request,
 * although the other had the key or token in its authentication cache.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorToken, revokeApiKey, revokeOperatorToken, updateOrganization } from '../../../src/domain/operations.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { startGateway, type TestGateway } from '../../support/gateway.js';
import { TypenameDocument } from '../../support/graphql/generated.js';
import { graphqlTyped } from '../../support/graphql/typed.js';
import { waitFor } from '../../support/processes.js';

let first: TestGateway;
let second: TestGateway;
beforeAll(async () => {
  const redisKeyPrefix = `test:gw:${randomBytes(4).toString('hex')}:`;
  first = await startGateway({ redis: true, redisKeyPrefix });
  second = await startGateway({ redis: true, redisKeyPrefix });
  // Two instances of one deployment share one database as well.
  second.ctx.db = first.ctx.db;
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const statusOn = async (gateway: TestGateway, key: string) => (await gateway.rest('GET', '/api/v2/transactions', { key })).status;
/** Pub/sub delivers in milliseconds; allow a second before calling it lost. */
const eventually = (check: () => Promise<boolean>) => waitFor(check, 1_000);

describe('authentication cache across instances', () => {
  it('a key revoked through one instance is refused by the other', async () => {
    const { organization, key } = await first.merchant();
    expect(await statusOn(second, key)).toBe(200); // now cached by the second instance
    const [apiKey] = await first.ctx.db.apiKey.findMany({ where: { organizationId: organization.id } });
    await revokeApiKey(first.ctx, first.operator, apiKey!.id);
    await eventually(async () => (await statusOn(second, key)) === 401);
  });

  it('an organisation blocked through one instance is refused by the other', async () => {
    const { organization, key } = await first.merchant();
    expect(await statusOn(second, key)).toBe(200);
    await updateOrganization(first.ctx, first.operator, organization.id, { status: 'blocked' });
    await eventually(async () => (await statusOn(second, key)) === 403);
  });

  it('an operator token revoked through one instance is refused by the other as soon as the revocation answers', async () => {
    const { secret, operatorToken } = await createOperatorToken(first.ctx, first.operator, 'analyst');
    const statusOfToken = async (gateway: TestGateway) => (await graphqlTyped(gateway, TypenameDocument, {}, secret)).status;
    expect(await statusOfToken(second)).toBe(200); // now cached by the second instance
    expect(second.ctx.callers!.get(sha256Hex(secret))).toMatchObject({ kind: 'operator', tokenId: operatorToken.id });
    expect(await revokeOperatorToken(first.ctx, first.operator, operatorToken.id)).toMatchObject({ propagationConfirmed: true });
    // Redis has sent the message to every subscriber once the revocation answers; it reaches the
    // other instance's cache within a few milliseconds of pub/sub delivery.
    await eventually(async () => (await statusOfToken(second)) === 401);
    expect(await statusOfToken(first)).toBe(401);
  });
});
