/**
 * GET /accounts, /accounts/stats and /accounts/{id} answer the spec's shapes: a bare array of
 * Accounts with exactly their nine fields, the stats object, one Account; balances follow the
 * ledger; reads keep working for an inactive organisation.
 */
import { describe, expect, it } from 'vitest';
import { adjustAccount, updateOrganization } from '../../../../src/domain/operations.js';
import { RFC3339_UTC } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';
import { ACCOUNT_FIELDS, pendingTransaction, sandboxPay } from '../../../support/accounts.js';

const gateway = useGateway();

describe('GET /api/v2/accounts', () => {
  it('is a bare array of the organisation’s two accounts, main first, with exactly the spec’s fields', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'read' });
    await gateway.merchant(); // another organisation, whose accounts must not show

    const response = await gateway.rest('GET', '/api/v2/accounts', { key });

    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body).toHaveLength(2);
    for (const account of response.body) {
      expect(Object.keys(account).sort()).toEqual(ACCOUNT_FIELDS);
      expect(account.created_at).toMatch(RFC3339_UTC);
      expect(account.updated_at).toMatch(RFC3339_UTC);
    }
    expect(response.body.map((account: { name: string }) => account.name)).toEqual(['main', 'escrow']);
    const stored = await gateway.ctx.db.account.findMany({ where: { organizationId: organization.id } });
    expect(response.body).toEqual(
      ['main', 'escrow'].map((name) => {
        const account = stored.find((row) => row.name === name)!;
        return {
          id: account.id,
          name,
          type: name === 'main' ? 'operating' : 'escrow',
          organization_id: organization.id,
          balance: 0,
          currency: 'XOF',
          is_active: true,
          created_at: account.createdAt.toISOString(),
          updated_at: account.updatedAt.toISOString(),
        };
      }),
    );
  });

  it('shows balances moved by payments and adjustments, as integers', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'checkout' });
    const readKey = await gateway.createKey(organization.id, 'readAndWrite');
    await sandboxPay(gateway, await pendingTransaction(gateway, key, { price: 10_000 }), 'wave');
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 250, reason: 'goodwill' });

    const accounts = (await gateway.rest('GET', '/api/v2/accounts', { key: readKey })).body;
    expect(accounts.map((account: { name: string; balance: number }) => [account.name, account.balance])).toEqual([
      ['main', 9_900 + 250],
      ['escrow', 0],
    ]);
  });
});

describe('GET /api/v2/accounts/stats', () => {
  it('totals main and escrow, counts accounts and active ones (and is not taken for an account id)', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'checkout', escrowEnabled: true, verified: true });
    const managementKey = await gateway.createKey(organization.id, 'management');
    await sandboxPay(gateway, await pendingTransaction(gateway, key, { price: 10_000 }), 'wave');
    await sandboxPay(gateway, await pendingTransaction(gateway, key, { price: 20_000, isEscrow: true }), 'orange_money');

    const stats = await gateway.rest('GET', '/api/v2/accounts/stats', { key: managementKey });
    expect(stats.status).toBe(200);
    // main 9 900 (10 000 less 1 %), escrow 19 700 (20 000 less 1.5 %).
    expect(stats.body).toStrictEqual({ total_balance: 9_900 + 19_700, account_count: 2, active_account_count: 2 });

    await gateway.ctx.db.account.update({ where: { organizationId_name: { organizationId: organization.id, name: 'escrow' } }, data: { isActive: false } });
    expect((await gateway.rest('GET', '/api/v2/accounts/stats', { key: managementKey })).body).toStrictEqual({
      total_balance: 29_600,
      account_count: 2,
      active_account_count: 1,
    });
  });
});

describe('GET /api/v2/accounts/{id}', () => {
  it('answers each listed account exactly as the list shows it', async () => {
    const { key } = await gateway.merchant({ scope: 'read' });
    const listed = (await gateway.rest('GET', '/api/v2/accounts', { key })).body;
    for (const account of listed) {
      const single = await gateway.rest('GET', `/api/v2/accounts/${account.id}`, { key });
      expect(single.status).toBe(200);
      expect(single.body).toStrictEqual(account);
    }
  });

  it('keeps working, with the list and the stats, for an inactive organisation (reads are allowed)', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'read' });
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'inactive' });
    const list = await gateway.rest('GET', '/api/v2/accounts', { key });
    expect(list.status).toBe(200);
    expect((await gateway.rest('GET', '/api/v2/accounts/stats', { key })).status).toBe(200);
    expect((await gateway.rest('GET', `/api/v2/accounts/${list.body[0].id}`, { key })).status).toBe(200);
  });
});
