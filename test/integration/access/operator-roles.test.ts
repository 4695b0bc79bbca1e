/**
 * The operator roles doing real work through GraphQL, as docs/graphql.md draws them: support approves
 * and rejects payouts under review and releases escrow (the money moves); analyst is refused each
 * of those and changes nothing; support is refused what only admin does.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OperatorRole } from '../../../src/generated/prisma/enums.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { ERROR_CATALOGUE } from '../../../src/domain/errors.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { transactionBody, useGateway } from '../../support/gateway.js';
import {
  AdjustAccountDocument,
  ApprovePayoutStatusDocument,
  CreateApiKeyDocument,
  RejectPayoutWithReasonDocument,
  ReleaseEscrowStatusDocument,
  SandboxPayDocument,
  SetSwitchDocument,
  UpdateOrganizationDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlRefusalTyped } from '../../support/graphql/typed.js';
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

const pay = (orderId: string) => ({ orderId, method: 'wave', phone: '+221771234567' }) as const;

async function expectRoleRefused<Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables, role: OperatorRole) {
  const refusal = await graphqlRefusalTyped(gateway, document, variables, tokens[role]);
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
    await expectRoleRefused(ApprovePayoutStatusDocument, { orderId }, 'analyst');
    const { approvePayout } = await graphqlDataTyped(gateway, ApprovePayoutStatusDocument, { orderId }, tokens.support);
    expect(approvePayout).toEqual({ orderId, status: 'completed' });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('rejects a payout under review (analyst may not); its funds return to main', async () => {
    const { organization, orderId } = await payoutUnderReview();
    await expectRoleRefused(RejectPayoutWithReasonDocument, { orderId, reason: 'not this one' }, 'analyst');
    const { rejectPayout } = await graphqlDataTyped(gateway, RejectPayoutWithReasonDocument, { orderId, reason: 'not this one' }, tokens.support);
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
    await expectRoleRefused(SandboxPayDocument, pay(orderId), 'support');
    expect((await graphqlDataTyped(gateway, SandboxPayDocument, pay(orderId))).sandboxPay.outcome).toBe('paid');

    await expectRoleRefused(ReleaseEscrowStatusDocument, { orderId }, 'analyst');
    const { releaseEscrow } = await graphqlDataTyped(gateway, ReleaseEscrowStatusDocument, { orderId }, tokens.support);
    expect(releaseEscrow).toEqual({ orderId, status: 'paid' });
    await expectBalancedLedger(gateway.db.prisma);
  });

  it('is refused what only admin does: adjustments, switches, organisations, keys', async () => {
    const organization = await gateway.createOrganization();
    await expectRoleRefused(AdjustAccountDocument, { organizationId: organization.id, amount: 1, reason: 'x' }, 'support');
    await expectRoleRefused(SetSwitchDocument, { name: 'wave', on: true }, 'support');
    await expectRoleRefused(UpdateOrganizationDocument, { id: organization.id, input: { verified: true } }, 'support');
    await expectRoleRefused(CreateApiKeyDocument, { organizationId: organization.id, scope: 'read' }, 'support');
    expect(await gateway.db.prisma.apiKey.count({ where: { organizationId: organization.id } })).toBe(0);
  });
});
