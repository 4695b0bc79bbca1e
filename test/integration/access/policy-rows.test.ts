/**
 * The access table itself (no gateway): one row per operation the domain exports, no row for an
 * operation that does not exist, the spec's merchant scopes, and the operator roles as docs/graphql.md
 * draws them (admin does everything operators do; analyst reads and mutates nothing; support reads,
 * approves or rejects payouts, releases escrow and redelivers webhooks).
 */
import { describe, expect, it } from 'vitest';
import * as operations from '../../../src/domain/operations.js';
import { ACCESS_POLICY, SPEC_OPERATIONS, authorize, mayRun, organizationOf, type AccessRule, type Operation } from '../../../src/domain/access/policy.js';
import { MERCHANT_OPERATIONS } from '../../../src/domain/access/scopes.js';
import type { Caller } from '../../../src/domain/access/caller.js';
import type { Organization } from '../../../src/generated/prisma/client.js';
import type { MerchantRole } from '../../../src/generated/prisma/enums.js';

const rows = Object.entries(ACCESS_POLICY) as [Operation, AccessRule][];
const writes = rows.filter(([, rule]) => rule.write).map(([operation]) => operation);
const operatorRows = rows.filter(([, rule]) => rule.roles.length > 0);
/** What any dashboard user may change: its own sign-in (two-factor enrolment), nothing of the organisation's. */
const USER_SELF_SERVICE: readonly string[] = ['startTwoFactorEnrolment', 'confirmTwoFactorEnrolment', 'disableTwoFactor', 'regenerateRecoveryCodes', 'signOut'];

describe('the access table', () => {
  it('has exactly one row for every operation src/domain/operations.ts exports', () => {
    const exported = Object.entries(operations)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      .sort();
    expect(Object.keys(ACCESS_POLICY).sort()).toEqual(exported);
  });

  it('keeps the spec table (MERCHANT_OPERATIONS is read from it) and gives v1 delete refund’s scopes', () => {
    expect(Object.keys(MERCHANT_OPERATIONS).sort()).toEqual([...SPEC_OPERATIONS].sort());
    for (const operation of SPEC_OPERATIONS) expect(MERCHANT_OPERATIONS[operation]).toBe(ACCESS_POLICY[operation]);
    expect(ACCESS_POLICY.cancelOrRefundTransaction.scopes).toEqual(ACCESS_POLICY.refundTransaction.scopes);
    // refund's scopes hold cancel's, so a v1 delete authorised as refund can run as cancel.
    for (const scope of ACCESS_POLICY.cancelTransaction.scopes) expect(ACCESS_POLICY.refundTransaction.scopes).toContain(scope);
  });

  it('admin is in every row an operator may run', () => {
    expect(operatorRows.filter(([, rule]) => !rule.roles.includes('admin')).map(([operation]) => operation)).toEqual([]);
  });

  it('analyst reads every operator-readable row and runs no write', () => {
    const analystRuns = operatorRows.filter(([, rule]) => rule.roles.includes('analyst')).map(([operation]) => operation);
    expect(analystRuns.filter((operation) => writes.includes(operation))).toEqual([]);
    const operatorReads = operatorRows.filter(([, rule]) => !rule.write).map(([operation]) => operation);
    expect(analystRuns.sort()).toEqual(operatorReads.sort());
  });

  it('support reads what analyst reads and writes only payout review, escrow release and webhook redelivery', () => {
    const supportWrites = operatorRows.filter(([, rule]) => rule.roles.includes('support') && rule.write).map(([operation]) => operation);
    expect(supportWrites.sort()).toEqual(['approvePayout', 'redeliverFailedWebhooks', 'redeliverWebhook', 'rejectPayout', 'releaseEscrow']);
    const supportReads = operatorRows.filter(([, rule]) => rule.roles.includes('support') && !rule.write).map(([operation]) => operation);
    const analystReads = operatorRows.filter(([, rule]) => rule.roles.includes('analyst')).map(([operation]) => operation);
    expect(supportReads.sort()).toEqual(analystReads.sort());
  });

  it('only the checkout page’s operations admit the customer', () => {
    expect(
      rows
        .filter(([, rule]) => rule.customer)
        .map(([operation]) => operation)
        .sort(),
    ).toEqual(['getCheckout', 'getPaymentLinkPage', 'payPaymentLink', 'payTransaction']);
    expect(mayRun({ kind: 'customer' }, 'payTransaction')).toBe(true);
    expect(mayRun({ kind: 'customer' }, 'releaseEscrow')).toBe(false);
  });
});

describe('the access table for merchant dashboard users (issue 20’s roles)', () => {
  const runsOf = (role: MerchantRole) => rows.filter(([, rule]) => rule.users?.includes(role)).map(([operation]) => operation);
  const writesOf = (role: MerchantRole) =>
    runsOf(role)
      .filter((operation) => writes.includes(operation))
      .sort();
  const userRows = rows.filter(([, rule]) => rule.users?.length);

  it('owner is in every row a user may run', () => {
    expect(userRows.filter(([, rule]) => !rule.users!.includes('owner')).map(([operation]) => operation)).toEqual([]);
  });

  it('every user reads what the organisation’s keys may read of its money, webhooks and keys', () => {
    // Beside the owner's own reads (the team, the audit log).
    const reads = userRows.filter(([, rule]) => !rule.write && rule.users!.length > 1).map(([operation]) => operation);
    for (const role of ['developer', 'operations', 'viewer'] as const)
      expect(
        runsOf(role)
          .filter((operation) => !writes.includes(operation))
          .sort(),
      ).toEqual(reads.sort());
    expect(
      userRows
        .filter(([, rule]) => !rule.write && rule.users!.length === 1)
        .map(([operation]) => operation)
        .sort(),
    ).toEqual(['listAuditEvents', 'listMembers']);
    for (const operation of [
      'listTransactions',
      'getPayout',
      'listAccountEntries',
      'transactionStats',
      'exportTransactions',
      'listWebhooks',
      'listWebhookDeliveries',
      'listApiKeys',
    ] as const) {
      expect(reads).toContain(operation);
    }
  });

  it('viewer writes nothing; operations moves money and redelivers; developer manages keys and webhooks', () => {
    expect(writesOf('viewer')).toEqual(writesOf('viewer').filter((operation) => USER_SELF_SERVICE.includes(operation)));
    // Operations: the three money movements and redelivery (of one delivery, or of the failed ones), nothing else.
    const operationsWrites = writesOf('operations').filter((operation) => !USER_SELF_SERVICE.includes(operation));
    expect(operationsWrites).toEqual(expect.arrayContaining(['cancelTransaction', 'createPayout', 'redeliverWebhook', 'refundTransaction']));
    expect(
      operationsWrites.filter(
        // Selling: making and deactivating payment links (issue 30); paying many: payout batches (issue 31).
        (operation) =>
          ![
            'cancelTransaction',
            'createPayout',
            'refundTransaction',
            'createPaymentLink',
            'deactivatePaymentLink',
            'createPayoutBatch',
            'startPayoutBatch',
            'cancelPayoutBatch',
          ].includes(operation) && !operation.startsWith('redeliver'),
      ),
    ).toEqual([]);
    const developerWrites = writesOf('developer').filter((operation) => !USER_SELF_SERVICE.includes(operation));
    expect(developerWrites).toEqual(
      expect.arrayContaining(['createApiKey', 'createWebhook', 'deleteWebhook', 'redeliverWebhook', 'revokeApiKey', 'rotateWebhookSecret']),
    );
    expect(developerWrites.filter((operation) => ['cancelTransaction', 'createPayout', 'refundTransaction'].includes(operation))).toEqual([]);
    for (const moving of ['refundTransaction', 'createPayout', 'cancelTransaction'] as const)
      expect(ACCESS_POLICY[moving].users).toEqual(['owner', 'operations']);
  });

  it('admits no user to a row of other organisations or of the gateway itself', () => {
    const operatorsOnly = [
      'listPendingPayouts',
      'approvePayout',
      'rejectPayout',
      'listOpenProviderCalls',
      'listProviderStatuses',
      'settleProviderCall',
      'adjustAccount',
      'payTransaction',
      'releaseEscrow',
      'listOrganizations',
      'createOrganization',
      'updateOrganization',
      'listSwitches',
      'setSwitch',
      'createOperatorToken',
      'listOperatorTokens',
      'revokeOperatorToken',
      'topOrganizations',
      'getCheckout',
      'createTransaction',
      'cancelOrRefundTransaction',
    ] as const;
    for (const operation of operatorsOnly) expect(ACCESS_POLICY[operation], operation).not.toHaveProperty('users');
  });
});

describe('authorize', () => {
  const merchant = (status: Organization['status'], scope: 'checkout' | 'read' = 'checkout'): Caller => ({
    kind: 'merchant',
    apiKeyId: 'k',
    scope,
    organization: { id: 'o', status } as Organization,
  });
  const codeOf = (run: () => unknown) => {
    try {
      run();
      return 'allowed';
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it('refuses in the spec’s order: blocked 403 on everything, inactive 401 on writes only, then the scope', () => {
    expect(codeOf(() => authorize(merchant('blocked'), 'getTransaction'))).toBe('organization_blocked');
    expect(codeOf(() => authorize(merchant('blocked', 'read'), 'createTransaction'))).toBe('organization_blocked');
    expect(codeOf(() => authorize(merchant('inactive'), 'createTransaction'))).toBe('organization_inactive');
    expect(codeOf(() => authorize(merchant('inactive'), 'getTransaction'))).toBe('allowed');
    expect(codeOf(() => authorize(merchant('inactive', 'read'), 'createTransaction'))).toBe('organization_inactive');
    expect(codeOf(() => authorize(merchant('active', 'read'), 'createTransaction'))).toBe('permission_denied');
    // A row no key may run: refused before the organisation's state is looked at.
    expect(codeOf(() => authorize(merchant('blocked'), 'approvePayout'))).toBe('permission_denied');
  });

  const user = (status: Organization['status'], role: MerchantRole): Caller => ({
    kind: 'merchantUser',
    userId: 'u',
    email: 'someone@example.com',
    role,
    sessionId: 's',
    organization: { id: 'o', status } as Organization,
  });

  it('judges a dashboard user like a key of its organisation, by role: blocked, then inactive on writes, then the role', () => {
    expect(codeOf(() => authorize(user('blocked', 'owner'), 'listTransactions'))).toBe('organization_blocked');
    expect(codeOf(() => authorize(user('inactive', 'owner'), 'refundTransaction'))).toBe('organization_inactive');
    expect(codeOf(() => authorize(user('inactive', 'viewer'), 'listTransactions'))).toBe('allowed');
    expect(codeOf(() => authorize(user('active', 'viewer'), 'refundTransaction'))).toBe('permission_denied');
    expect(codeOf(() => authorize(user('active', 'operations'), 'refundTransaction'))).toBe('allowed');
    expect(codeOf(() => authorize(user('active', 'developer'), 'createPayout'))).toBe('permission_denied');
    expect(codeOf(() => authorize(user('active', 'developer'), 'rotateWebhookSecret'))).toBe('allowed');
    // A row no user may run: refused before the organisation's state is looked at.
    expect(codeOf(() => authorize(user('blocked', 'owner'), 'approvePayout'))).toBe('permission_denied');
    expect(mayRun(user('active', 'owner'), 'setSwitch')).toBe(false);
  });

  it('keeps a dashboard user on its own organisation (naming another is refused; none names its own)', () => {
    const owner = user('active', 'owner');
    expect(organizationOf(owner)).toBe('o');
    expect(organizationOf(owner, 'o')).toBe('o');
    expect(codeOf(() => organizationOf(owner, 'another'))).toBe('permission_denied');
  });

  it('refuses an operator by role (operator_forbidden), or as no principal of the row (permission_denied)', () => {
    expect(codeOf(() => authorize({ kind: 'operator', role: 'analyst', tokenId: null }, 'approvePayout'))).toBe('operator_forbidden');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'support', tokenId: null }, 'approvePayout'))).toBe('allowed');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'support', tokenId: null }, 'adjustAccount'))).toBe('operator_forbidden');
    // Admins create a transaction in an organisation's place (gateway trigger); no other role does.
    expect(codeOf(() => authorize({ kind: 'operator', role: 'admin', tokenId: null }, 'createTransaction'))).toBe('allowed');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'analyst', tokenId: null }, 'createTransaction'))).toBe('operator_forbidden');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'admin', tokenId: null }, 'getCheckout'))).toBe('permission_denied');
  });
});
