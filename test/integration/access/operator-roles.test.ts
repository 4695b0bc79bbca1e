/**
 * The operator roles doing real work through GraphQL, as DESIGN.md draws them: support approves
 * and rejects payouts under review and releases escrow (the money moves); analyst is refused each
 * of those and changes nothing; support is refused what only admin does.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OperatorRole } from '../../../src/generated/prisma/enums.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { ERROR_CATALOGUE } from '../../../src/domain/errors.js';
import { graphqlData, graphqlRefusal } from '../../support/assertions.js';
import { transactionBody, useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';
import { PHONES, fundedMerchant, mainBalance, payoutBody, postPayout } from '../../support/payouts.js';

const gateway = useGateway();
const tokens: Partial<Record<OperatorRole, string>> = {};

beforeAll(async () => {
  for (const role of ['analyst', 'support'] as const) {
    const token = `gw_op_${randomBytes(32).toString('base64url')}`;
    await gateway.ctx.db.operatorToken.create({ data: { role, prefix: token.slice(0, 14), tokenDigest: sha256Hex(token) } });
    tokens[role] = token;
  }
});

const APPROVE = 'mutation($id: ID!) { approvePayout(orderId: $id) { orderId status } }';
const REJECT = 'mutation($id: ID!) { rejectPayout(orderId: $id, reason: "not this one") { orderId status failureReason } }';
const RELEASE = 'mutation($id: ID!) { releaseEscrow(orderId: $id) { orderId status } }';
const SANDBOX_PAY = 'mutation($id: ID!) { sandboxPay(orderId: $id, method: wave, phone: "+221771234567") { outcome } }';

async function expectRoleRefused(query: string, variables: Record<string, unknown>, role: OperatorRole) {
  const refusal = await graphqlRefusal(gateway, query, variables, tokens[role]);
  expect(refusal.extensions.code).toBe('FORBIDDEN');
  expect(refusal.message).toBe(ERROR_CATALOGUE.operator_forbidden.message);
}

async function payoutUnderReview() {
  const merchant = await fundedMerchant(gateway, { balance: 3_000_000 });
  const response = await postPayout(gateway, merchant.key, payoutBody({ amount: 2_500_000, recipient: { phone: PHONES.succeeds } }));
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  expect(response.body.payout_status).toBe('pending');
  return { ...merchant, orderId: response.body.order_id as string };
}

describe('support', () => {
  it('approves a payout under review (analyst may not); it is sent and completed', async () => {
    const { orderId } = await payoutUnderReview();
    await expectRoleRefused(APPROVE, { id: orderId }, 'analyst');
    const { approvePayout } = await graphqlData(gateway, APPROVE, { id: orderId }, tokens.support);
    expect(approvePayout).toEqual({ orderId, status: 'completed' });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('rejects a payout under review (analyst may not); its funds return to main', async () => {
    const { organization, orderId } = await payoutUnderReview();
    await expectRoleRefused(REJECT, { id: orderId }, 'analyst');
    const { rejectPayout } = await graphqlData(gateway, REJECT, { id: orderId }, tokens.support);
    expect(rejectPayout).toMatchObject({ orderId, status: 'cancelled', failureReason: 'not this one' });
    expect(await mainBalance(gateway, organization.id)).toBe(3_000_000n);
  });

  it('releases escrow (analyst may not); the transaction is paid', async () => {
    const { key } = await gateway.merchant({ verified: true, escrowEnabled: true });
    const created = await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody({ is_escrow: true }) });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    const orderId: string = created.body.order_id;
    expect(created.body.is_escrow).toBe(true);
    // Driving the sandbox payment is admin's; support may not.
    await expectRoleRefused(SANDBOX_PAY, { id: orderId }, 'support');
    expect((await graphqlData(gateway, SANDBOX_PAY, { id: orderId })).sandboxPay.outcome).toBe('paid');

    await expectRoleRefused(RELEASE, { id: orderId }, 'analyst');
    const { releaseEscrow } = await graphqlData(gateway, RELEASE, { id: orderId }, tokens.support);
    expect(releaseEscrow).toEqual({ orderId, status: 'paid' });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('is refused what only admin does: adjustments, switches, organisations, keys', async () => {
    const organization = await gateway.createOrganization();
    await expectRoleRefused('mutation($org: ID!) { adjustAccount(organizationId: $org, amount: 1, reason: "x") { id } }', { org: organization.id }, 'support');
    await expectRoleRefused('mutation { setSwitch(name: wave, on: true) { name } }', {}, 'support');
    await expectRoleRefused('mutation($id: ID!) { updateOrganization(id: $id, input: { verified: true }) { id } }', { id: organization.id }, 'support');
    await expectRoleRefused('mutation($org: ID!) { createApiKey(organizationId: $org, scope: read) { key } }', { org: organization.id }, 'support');
    expect(await gateway.db.prisma.apiKey.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});
