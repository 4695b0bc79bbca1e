/**
 * POST /payouts up to 2,000,000 XOF is sent at once: `completed` with main debited by amount +
 * fees in balanced entries (main -> provider clearing, fee -> revenue); a provider refusal
 * (sandbox wallet ...0000) is the spec's 500, recorded `failed` with the posting reversed. The
 * create, get and list shapes are exactly the spec's (checked against openapi/v2.yaml too), and
 * GET /payouts/{order_id} answers 404 for unknown and other organisations' payouts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { updateOrganization } from '../../../../src/domain/operations.js';
import { V2_DEFINITION } from '../../../../src/rest/v2/surface.js';
import { RFC3339_UTC, expectCatalogueError } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';
import { expectBalancedLedger } from '../../../support/ledger.js';
import {
  PAYOUT_CREATED_FIELDS,
  PAYOUT_FIELDS,
  PHONES,
  expectPayout,
  fundedMerchant,
  mainBalance,
  payoutBody,
  payoutEntries,
  postPayout,
} from '../../../support/payouts.js';
import { useContract } from '../../../support/contract.js';

const gateway = useGateway();
const contract = useContract(V2_DEFINITION, '/api/v2');

const { expectConforms } = contract;

const entriesAsRows = (entries: Awaited<ReturnType<typeof payoutEntries>>) =>
  entries.map((entry) => [entry.kind, entry.account?.name ?? entry.gatewayAccount, entry.amount] as const);

describe('POST /api/v2/payouts up to 2,000,000 XOF', () => {
  it('sends it at once: completed, main debited by amount + fees, in balanced entries', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const response = await postPayout(gateway, key, payoutBody({ amount: 250_000 }));
    const payout = expectPayout(response, 'completed');
    expect(Object.keys(payout).sort()).toEqual(PAYOUT_CREATED_FIELDS);
    expectConforms('createPayout', 200, payout);
    expect(payout).toMatchObject({
      _id: payout.order_id,
      organization_id: organization.id,
      selected_payment_method: 'wave',
      amount: 250_000,
      fees: 2_500,
      currency: 'XOF',
      recipient: { first_name: 'Moussa', last_name: 'Ndiaye', phone: PHONES.succeeds, created_at: payout.created_at },
      reason: 'Supplier invoice 42',
      is_deleted: false,
    });
    expect(payout.provider_reference).toMatch(/^sbx_payout_/);
    for (const field of ['created_at', 'updated_at', 'paid_at']) expect(payout[field]).toMatch(RFC3339_UTC);

    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 252_500n);
    expect(entriesAsRows(await payoutEntries(gateway, payout.order_id)).sort()).toEqual(
      [
        ['payout', 'main', -252_500n],
        ['payout', 'provider_clearing_wave', 250_000n],
        ['payout', 'fee_revenue', 2_500n],
      ].sort(),
    );
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('reads back through GET /payouts/{order_id} and GET /payouts without _id and organization_id', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const created = expectPayout(
      await postPayout(gateway, key, payoutBody({ selected_payment_method: 'orange_money', recipient: { phone: '+225 07 0000 0001' } })),
      'completed',
    );
    expect(created.recipient).toEqual({ first_name: '', last_name: '', phone: '+2250700000001', created_at: created.created_at });
    const readKey = await gateway.createKey(organization.id, 'read');
    for (const reader of [key, readKey]) {
      const got = await gateway.rest('GET', `/api/v2/payouts/${created.order_id}`, { key: reader });
      expect(got.status).toBe(200);
      expect(Object.keys(got.body).sort()).toEqual(PAYOUT_FIELDS);
      const { _id, organization_id, ...rest } = created;
      expect(got.body).toEqual(rest);
      expectConforms('getPayout', 200, got.body);

      const list = await gateway.rest('GET', '/api/v2/payouts', { key: reader });
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ payouts: [rest], pagination: { page: 1, limit: 20, total_count: 1, total_pages: 1 } });
      expectConforms('listPayouts', 200, list.body);
    }
    const entries = entriesAsRows(await payoutEntries(gateway, created.order_id));
    expect(entries).toContainEqual(['payout', 'provider_clearing_orange_money', 10_000n]);
  });

  it('a provider refusal (wallet ...0000) is a 500, recorded failed, with amount and fees returned', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const response = await postPayout(gateway, key, payoutBody({ amount: 40_000, recipient: { phone: PHONES.fails } }));
    expectCatalogueError(response, 'payout_failed', 'wave');
    expectConforms('createPayout', 500, response.body);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n);

    // The caller finds it by recipient_phone, as the spec tells it to.
    const found = await gateway.rest('GET', `/api/v2/payouts?recipient_phone=${encodeURIComponent(PHONES.fails)}`, { key });
    expect(found.body.payouts).toHaveLength(1);
    expect(found.body.payouts[0]).toMatchObject({ amount: 40_000, fees: 400, payout_status: 'failed', paid_at: null });
    const row = await gateway.ctx.db.payout.findUniqueOrThrow({ where: { id: found.body.payouts[0].order_id } });
    expect(row.failureReason).toMatch(/refused/);
    expect(entriesAsRows(await payoutEntries(gateway, row.id)).sort()).toEqual(
      [
        ['payout', 'main', -40_400n],
        ['payout', 'provider_clearing_wave', 40_000n],
        ['payout', 'fee_revenue', 400n],
        ['payout_reversal', 'main', 40_400n],
        ['payout_reversal', 'provider_clearing_wave', -40_000n],
        ['payout_reversal', 'fee_revenue', -400n],
      ].sort(),
    );
    await expectBalancedLedger(gateway.db.prisma);
    // The lock was released: the next payout runs.
    expectPayout(await postPayout(gateway, key), 'completed');
  });

  it('writes the same payout and entries without a key (one statement) as with one (a transaction with the key row)', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const oneStatement = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 40_000 })), 'completed');
    const withKey = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 40_000 }), `same-rows-${randomUUID()}`), 'completed');
    const comparable = ({
      order_id: _id,
      _id: _same,
      created_at: _c,
      updated_at: _u,
      paid_at: _p,
      provider_reference: _r,
      recipient,
      ...rest
    }: Record<string, unknown>) => ({
      ...rest,
      recipient: { ...(recipient as Record<string, unknown>), created_at: undefined },
    });
    expect(comparable(oneStatement)).toEqual(comparable(withKey));
    const entries = async (payoutId: string) =>
      (await payoutEntries(gateway, payoutId))
        .map((entry) => [entry.kind, entry.account?.name ?? entry.gatewayAccount, entry.amount, entry.description.replace(payoutId, 'ID')] as const)
        .sort();
    expect(await entries(oneStatement.order_id)).toEqual(await entries(withKey.order_id));
    // Each debit records the balance it left, in the order they ran.
    const mains = [oneStatement.order_id, withKey.order_id].map(
      async (id) => (await payoutEntries(gateway, id)).find((entry) => entry.account?.name === 'main')?.balanceAfter,
    );
    expect(await Promise.all(mains)).toEqual([1_000_000n - 40_400n, 1_000_000n - 80_800n]);
    expect(await mainBalance(gateway, organization.id)).toBe(1_000_000n - 80_800n);
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('a debit the balance cannot cover writes nothing in one statement and answers Insufficient balance', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 10_000 });
    expectCatalogueError(await postPayout(gateway, key, payoutBody({ amount: 9_950 })), 'insufficient_balance');
    expect(await gateway.ctx.db.payout.count({ where: { organizationId: organization.id } })).toBe(0);
    expect(await gateway.ctx.db.ledgerEntry.count({ where: { account: { organizationId: organization.id }, kind: 'payout' } })).toBe(0);
    expect(await mainBalance(gateway, organization.id)).toBe(10_000n);
  });

  it('exactly 2,000,000 XOF is still sent synchronously', async () => {
    const { organization, key } = await fundedMerchant(gateway, { balance: 2_020_000 });
    expectPayout(await postPayout(gateway, key, payoutBody({ amount: 2_000_000 })), 'completed');
    expect(await mainBalance(gateway, organization.id)).toBe(0n);
  });
});

describe('GET /api/v2/payouts/{order_id}', () => {
  it('answers 404 Payout not found for unknown, malformed and other organisations’ ids', async () => {
    const mine = await fundedMerchant(gateway);
    const other = await fundedMerchant(gateway);
    const theirs = expectPayout(await postPayout(gateway, other.key), 'completed');
    for (const id of [randomUUID(), 'not-a-uuid', theirs.order_id, "1' OR '1'='1"]) {
      expectCatalogueError(await gateway.rest('GET', `/api/v2/payouts/${encodeURIComponent(id)}`, { key: mine.key }), 'payout_not_found');
    }
    const list = await gateway.rest('GET', '/api/v2/payouts', { key: mine.key });
    expect(list.body.payouts).toEqual([]);
  });

  it('refuses keys without payout or read scope, and still serves inactive organisations', async () => {
    const { organization, key } = await fundedMerchant(gateway);
    const created = expectPayout(await postPayout(gateway, key), 'completed');
    for (const scope of ['checkout', 'write', 'readAndWrite', 'management']) {
      const other = await gateway.createKey(organization.id, scope);
      expectCatalogueError(await gateway.rest('GET', `/api/v2/payouts/${created.order_id}`, { key: other }), 'permission_denied');
      expectCatalogueError(await gateway.rest('GET', '/api/v2/payouts', { key: other }), 'permission_denied');
    }
    await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'inactive' });
    expect((await gateway.rest('GET', `/api/v2/payouts/${created.order_id}`, { key })).status).toBe(200);
    expect((await gateway.rest('GET', '/api/v2/payouts', { key })).body.payouts).toHaveLength(1);
    expectCatalogueError(await postPayout(gateway, key), 'organization_inactive');
  });
});
