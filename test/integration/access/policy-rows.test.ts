/**
 * The access table itself (no gateway): one row per operation the domain exports, no row for an
 * operation that does not exist, the spec's merchant scopes, and the operator roles as DESIGN.md
 * draws them (admin does everything operators do; analyst reads and mutates nothing; support reads,
 * approves or rejects payouts, releases escrow and redelivers webhooks).
 */
import { describe, expect, it } from 'vitest';
import * as operations from '../../../src/domain/operations.js';
import { ACCESS_POLICY, SPEC_OPERATIONS, authorize, mayRun, type AccessRule, type Operation } from '../../../src/domain/access/policy.js';
import { MERCHANT_OPERATIONS } from '../../../src/domain/access/scopes.js';
import type { Caller } from '../../../src/domain/access/caller.js';
import type { Organization } from '../../../src/generated/prisma/client.js';

const rows = Object.entries(ACCESS_POLICY) as [Operation, AccessRule][];
const writes = rows.filter(([, rule]) => rule.write).map(([operation]) => operation);
const operatorRows = rows.filter(([, rule]) => rule.roles.length > 0);

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
    expect(supportWrites.sort()).toEqual(['approvePayout', 'redeliverWebhook', 'rejectPayout', 'releaseEscrow']);
    const supportReads = operatorRows.filter(([, rule]) => rule.roles.includes('support') && !rule.write).map(([operation]) => operation);
    const analystReads = operatorRows.filter(([, rule]) => rule.roles.includes('analyst')).map(([operation]) => operation);
    expect(supportReads.sort()).toEqual(analystReads.sort());
  });

  it('only the checkout page’s operations admit the customer', () => {
    expect(rows.filter(([, rule]) => rule.customer).map(([operation]) => operation).sort()).toEqual(['getCheckout', 'payTransaction']);
    expect(mayRun({ kind: 'customer' }, 'payTransaction')).toBe(true);
    expect(mayRun({ kind: 'customer' }, 'releaseEscrow')).toBe(false);
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

  it('refuses an operator by role (operator_forbidden), or as no principal of the row (permission_denied)', () => {
    expect(codeOf(() => authorize({ kind: 'operator', role: 'analyst', tokenId: null }, 'approvePayout'))).toBe('operator_forbidden');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'support', tokenId: null }, 'approvePayout'))).toBe('allowed');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'support', tokenId: null }, 'adjustAccount'))).toBe('operator_forbidden');
    expect(codeOf(() => authorize({ kind: 'operator', role: 'admin', tokenId: null }, 'createTransaction'))).toBe('permission_denied');
  });
});
