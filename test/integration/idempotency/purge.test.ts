import { describe, expect, it } from 'vitest';
import { purgeExpiredIdempotencyKeys } from '../../../src/domain/idempotency.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

describe('purgeExpiredIdempotencyKeys', () => {
  it('drops keys past their 24 hours and keeps the others', async () => {
    const { organization } = await gateway.merchant();
    const hour = 60 * 60 * 1000;
    await gateway.ctx.db.idempotencyKey.createMany({
      data: [
        { organizationId: organization.id, key: 'expired', requestHash: 'h', expiresAt: new Date(Date.now() - hour) },
        { organizationId: organization.id, key: 'fresh', requestHash: 'h', expiresAt: new Date(Date.now() + hour) },
      ],
    });
    expect(await purgeExpiredIdempotencyKeys(gateway.ctx)).toBe(1);
    const left = await gateway.ctx.db.idempotencyKey.findMany({ where: { organizationId: organization.id } });
    expect(left.map((row) => row.key)).toEqual(['fresh']);
  });
});
