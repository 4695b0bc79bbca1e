/**
 * The mechanism itself, called as an operation calls it: the key row commits or rolls back
 * together with the operation's effects.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import { runIdempotently } from '../../../src/domain/idempotency.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

/** An effect to observe: a switch row named after the test. */
const flip = (name: string) => async (tx: Parameters<Parameters<typeof runIdempotently>[2]>[0]) => {
  await tx.switch.create({ data: { name, on: false } });
  return { name, at: new Date('2026-01-02T03:04:05.678Z'), amount: 12_345_678_901n };
};
const keyRow = (organizationId: string, key: string) => gateway.ctx.db.idempotencyKey.findUnique({ where: { organizationId_key: { organizationId, key } } });
const switchExists = async (name: string) => (await gateway.ctx.db.switch.count({ where: { name } })) === 1;

describe('runIdempotently', () => {
  it('commits the key row with the effects, and replays the value (bigint and dates intact) without running again', async () => {
    const { organization } = await gateway.merchant();
    const scope = { organizationId: organization.id, key: 'k1', operation: 'test', input: { a: 1 } };
    const first = await runIdempotently(gateway.ctx, scope, flip('commit-1'));
    expect(first.replayed).toBe(false);
    expect(await switchExists('commit-1')).toBe(true);
    expect(await keyRow(organization.id, 'k1')).toMatchObject({ state: 'completed', responseStatus: 200 });

    let ran = false;
    const again = await runIdempotently(gateway.ctx, scope, async () => {
      ran = true;
      return null;
    });
    expect(ran).toBe(false);
    expect(again).toEqual({ replayed: true, value: { name: 'commit-1', at: new Date('2026-01-02T03:04:05.678Z'), amount: 12_345_678_901n } });
  });

  it('rolls the key back with the effects when the operation fails unexpectedly: a retry runs afresh', async () => {
    const { organization } = await gateway.merchant();
    const scope = { organizationId: organization.id, key: 'k2', operation: 'test', input: {} };
    await expect(
      runIdempotently(gateway.ctx, scope, async (tx) => {
        await flip('rollback-1')(tx);
        throw new Error('provider exploded');
      }),
    ).rejects.toThrow('provider exploded');
    expect(await switchExists('rollback-1')).toBe(false);
    expect(await keyRow(organization.id, 'k2')).toBeNull();
    expect((await runIdempotently(gateway.ctx, scope, flip('rollback-2'))).replayed).toBe(false);
  });

  it('keeps a refusal (4xx) without its effects, and replays it marked as replayed', async () => {
    const { organization } = await gateway.merchant();
    const scope = { organizationId: organization.id, key: 'k3', operation: 'test', input: {} };
    const refuse = async (tx: Parameters<ReturnType<typeof flip>>[0]) => {
      await flip('refusal-1')(tx);
      throw new DomainError('invalid_total');
    };
    await expect(runIdempotently(gateway.ctx, scope, refuse)).rejects.toMatchObject({ code: 'invalid_total', replayed: false });
    expect(await switchExists('refusal-1')).toBe(false);
    await expect(runIdempotently(gateway.ctx, scope, flip('refusal-2'))).rejects.toMatchObject({ code: 'invalid_total', status: 400, replayed: true });
    expect(await switchExists('refusal-2')).toBe(false);
  });

  it('does not keep transient refusals (409, 429, 5xx)', async () => {
    const { organization } = await gateway.merchant();
    for (const code of ['idempotency_key_in_use', 'rate_limited', 'transactions_disabled'] as const) {
      const scope = { organizationId: organization.id, key: `k-${code}`, operation: 'test', input: {} };
      await expect(runIdempotently(gateway.ctx, scope, async () => Promise.reject(new DomainError(code)))).rejects.toMatchObject({ code });
      expect(await keyRow(organization.id, `k-${code}`)).toBeNull();
    }
  });

  it('names the operation in the fingerprint: one key for another operation is a 422', async () => {
    const { organization } = await gateway.merchant();
    await runIdempotently(gateway.ctx, { organizationId: organization.id, key: 'k4', operation: 'createTransaction', input: {} }, flip('op-1'));
    await expect(
      runIdempotently(gateway.ctx, { organizationId: organization.id, key: 'k4', operation: 'createPayout', input: {} }, flip('op-2')),
    ).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      status: 422,
    });
  });

  it('treats absent and null fields alike (surfaces differ in how they say "not given")', async () => {
    const { organization } = await gateway.merchant();
    const base = { organizationId: organization.id, key: 'k5', operation: 'test' };
    await runIdempotently(gateway.ctx, { ...base, input: { customer: { firstName: 'Awa' }, successUrl: undefined } }, flip('null-1'));
    const again = await runIdempotently(gateway.ctx, { ...base, input: { successUrl: null, customer: { lastName: null, firstName: 'Awa' } } }, flip('null-2'));
    expect(again.replayed).toBe(true);
  });
});
