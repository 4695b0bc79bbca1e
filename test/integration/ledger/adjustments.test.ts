/**
 * adjustAccount (operator GraphQL): a signed correction of main posted against the gateway's
 * adjustments account with its reason; a debit main cannot cover is refused and changes nothing;
 * bad input is a 400-class error; only admins adjust.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { expectGraphqlError } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { balances } from '../../support/accounts.js';
import { AdjustAccountDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();

const adjust = (organizationId: string, amount: number, reason: string, token = gateway.adminToken) =>
  graphqlTyped(gateway, AdjustAccountDocument, { organizationId, amount, reason }, token);

describe('adjusting main', () => {
  it('credits and debits main with the reason on the entry, against the adjustments account', async () => {
    const organization = await gateway.createOrganization();
    const credited = (await graphqlDataTyped(gateway, AdjustAccountDocument, { organizationId: organization.id, amount: 5_000, reason: 'goodwill, ticket 42' }))
      .adjustAccount;
    expect(credited).toMatchObject({ organizationId: organization.id, name: 'main', balance: 5_000 });
    const debited = (await graphqlDataTyped(gateway, AdjustAccountDocument, { organizationId: organization.id, amount: -1_500, reason: 'duplicate credit' }))
      .adjustAccount;
    expect(debited).toMatchObject({ id: credited.id, balance: 3_500 });

    const entries = await gateway.ctx.db.ledgerEntry.findMany({
      where: { kind: 'adjustment', OR: [{ accountId: credited.id }, { gatewayAccount: 'adjustments' }] },
    });
    expect(entries.map((entry) => [entry.gatewayAccount ?? 'main', entry.amount, entry.description]).sort()).toEqual(
      [
        ['adjustments', -5_000n, 'goodwill, ticket 42'],
        ['main', 5_000n, 'goodwill, ticket 42'],
        ['adjustments', 1_500n, 'duplicate credit'],
        ['main', -1_500n, 'duplicate credit'],
      ].sort(),
    );
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('refuses a debit below zero with INSUFFICIENT_BALANCE and changes nothing', async () => {
    const organization = await gateway.createOrganization();
    await graphqlDataTyped(gateway, AdjustAccountDocument, { organizationId: organization.id, amount: 100, reason: 'credit' });
    const entriesBefore = await gateway.ctx.db.ledgerEntry.count();

    expectGraphqlError(await adjust(organization.id, -101, 'too much'), 'insufficient_balance');
    expect(await balances(gateway, organization.id)).toEqual({ main: 100n, escrow: 0n });
    expect(await gateway.ctx.db.ledgerEntry.count()).toBe(entriesBefore);

    // Down to exactly zero is allowed.
    expect(
      (await graphqlDataTyped(gateway, AdjustAccountDocument, { organizationId: organization.id, amount: -100, reason: 'to zero' })).adjustAccount.balance,
    ).toBe(0);
  });

  it('refuses bad input with 400-class errors: zero, beyond the maximum, no reason, a reason too long, an unknown organisation', async () => {
    const organization = await gateway.createOrganization();
    const amountError = 'amount must be a non-zero whole number of XOF, at most 1000000000000 either way';
    expectGraphqlError(await adjust(organization.id, 0, 'nothing'), 'invalid_input', amountError);
    expectGraphqlError(await adjust(organization.id, 1_000_000_000_001, 'too big'), 'invalid_input', amountError);
    expectGraphqlError(await adjust(organization.id, 10, '   '), 'invalid_input', 'reason must be 1 to 500 characters');
    expectGraphqlError(await adjust(organization.id, 10, 'x'.repeat(501)), 'invalid_input', 'reason must be 1 to 500 characters');
    expectGraphqlError(await adjust(randomUUID(), 10, 'who?'), 'organization_not_found');
    expectGraphqlError(await adjust('nope', 10, 'who?'), 'organization_not_found');
    const fractional = await adjust(organization.id, 1.5, 'half');
    expect(fractional.status).toBeLessThan(500);
    expect(fractional.body.errors?.length).toBeGreaterThan(0);
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
  });

  it('is for admins: an analyst operator and a merchant key are refused', async () => {
    const organization = await gateway.createOrganization();
    const analyst = `gw_op_${randomBytes(32).toString('base64url')}`;
    await gateway.ctx.db.operatorToken.create({ data: { role: 'analyst', prefix: analyst.slice(0, 14), tokenDigest: sha256Hex(analyst) } });
    const key = await gateway.createKey(organization.id, 'management');
    expectGraphqlError(await adjust(organization.id, 10, 'analyst', analyst), 'operator_forbidden');
    expectGraphqlError(await adjust(organization.id, 10, 'merchant', key), 'permission_denied');
    expect(await balances(gateway, organization.id)).toEqual({ main: 0n, escrow: 0n });
  });
});
