/**
 * The access policy, walked whole through the surfaces: for every operation in ACCESS_POLICY and
 * every principal (a merchant key of each scope, an operator token of each role), the operation is
 * called through GraphQL (and REST for the REST operations), and what the surface answers (allowed,
 * or refused with FORBIDDEN / 403) must be what the table says. The probes use ids that exist
 * nowhere, so an allowed call ends in a not-found or an input error, never in a change that matters.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiScope, OperatorRole } from '../../../src/generated/prisma/enums.js';
import { ACCESS_POLICY, type AccessRule, type Operation } from '../../../src/domain/access/policy.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { ERROR_CATALOGUE as ERRORS } from '../../../src/domain/errors.js';
import { transactionBody, useGateway } from '../../support/gateway.js';
import { schema } from '../../../src/graphql/schema/index.js';

const gateway = useGateway();
// Raw query text: a probe per row of the access table, most sending input the operation then refuses; a row is added with its operation.

const SCOPES: readonly ApiScope[] = ['checkout', 'read', 'write', 'readAndWrite', 'management', 'payout'];
const ROLES: readonly OperatorRole[] = ['admin', 'analyst', 'support'];

type Principal = { kind: 'merchant'; scope: ApiScope } | { kind: 'operator'; role: OperatorRole };
const PRINCIPALS: readonly Principal[] = [
  ...SCOPES.map((scope) => ({ kind: 'merchant' as const, scope })),
  ...ROLES.map((role) => ({ kind: 'operator' as const, role })),
];
const nameOf = (principal: Principal) => (principal.kind === 'merchant' ? `key:${principal.scope}` : `operator:${principal.role}`);

/** What the table says (the organisation is active: scope and role decide). */
function expected(rule: AccessRule, principal: Principal): 'allowed' | 'permission_denied' | 'operator_forbidden' {
  if (principal.kind === 'merchant') return rule.scopes.includes(principal.scope) ? 'allowed' : 'permission_denied';
  if (rule.roles.length === 0) return 'permission_denied';
  return rule.roles.includes(principal.role) ? 'allowed' : 'operator_forbidden';
}

interface Fixture {
  organizationId: string;
  accountId: string;
  /** An (empty) payout batch of the organisation: the results export streams it when allowed. */
  batchId: string;
}

/** One GraphQL call per operation that GraphQL serves. */
const GRAPHQL: Partial<Record<Operation, (f: Fixture) => { query: string; variables?: Record<string, unknown> }>> = {
  createTransaction: () => ({
    query: 'mutation($input: CreateTransactionInput!) { createTransaction(input: $input) { checkoutUrl } }',
    variables: { input: { methodOfPayment: ['wave'], products: [{ name: 'Policy probe', price: 1000, quantity: 1 }] } },
  }),
  getTransaction: () => ({ query: 'query($id: ID!) { transaction(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),
  listTransactions: () => ({ query: '{ transactions(limit: 1) { __typename } }' }),
  cancelTransaction: () => ({ query: 'mutation($id: ID!) { cancelTransaction(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),
  refundTransaction: () => ({ query: 'mutation($id: ID!) { refundTransaction(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),
  payTransaction: () => ({ query: 'mutation($id: ID!) { sandboxPay(orderId: $id) { outcome } }', variables: { id: randomUUID() } }),
  releaseEscrow: () => ({ query: 'mutation($id: ID!) { releaseEscrow(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),

  createPayout: () => ({
    query: 'mutation($input: CreatePayoutInput!) { createPayout(input: $input) { orderId } }',
    variables: { input: { amount: 1000, recipient: { phone: '+221770000001' }, selectedPaymentMethod: 'wave' } },
  }),
  getPayout: () => ({ query: 'query($id: ID!) { payout(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),
  listPayouts: () => ({ query: '{ payouts(limit: 1) { __typename } }' }),
  createPayoutBatch: () => ({
    query: 'mutation($items: [PayoutBatchLineInput!]!) { createPayoutBatch(items: $items) { id } }',
    variables: { items: [] },
  }),
  startPayoutBatch: () => ({ query: 'mutation($id: ID!) { startPayoutBatch(id: $id) { id } }', variables: { id: randomUUID() } }),
  cancelPayoutBatch: () => ({ query: 'mutation($id: ID!) { cancelPayoutBatch(id: $id) { id } }', variables: { id: randomUUID() } }),
  getPayoutBatch: () => ({ query: 'query($id: ID!) { payoutBatch(id: $id) { id } }', variables: { id: randomUUID() } }),
  listPendingPayouts: () => ({ query: '{ pendingPayouts(limit: 1) { __typename } }' }),
  approvePayout: () => ({ query: 'mutation($id: ID!) { approvePayout(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),
  rejectPayout: () => ({ query: 'mutation($id: ID!) { rejectPayout(orderId: $id) { orderId } }', variables: { id: randomUUID() } }),
  listOpenProviderCalls: () => ({ query: '{ openProviderCalls { __typename } }' }),
  listProviderStatuses: () => ({ query: '{ providerStatus { __typename } }' }),
  listLatePayments: () => ({ query: '{ latePayments { __typename } }' }),
  // With the sandbox there are no provider records to compare: an allowed caller gets that refusal, not an access one.
  reconcileProvider: () => ({ query: '{ reconcileProvider(method: wave) { __typename } }' }),
  settleProviderCall: () => ({
    query: 'mutation($id: ID!) { settleProviderCall(id: $id, kind: PAYOUT, outcome: FAILED, reason: "policy probe") { __typename } }',
    variables: { id: randomUUID() },
  }),

  createPaymentLink: () => ({ query: 'mutation { createPaymentLink(input: { name: "", amount: 1 }) { id } }' }),
  deactivatePaymentLink: () => ({ query: 'mutation($id: ID!) { deactivatePaymentLink(id: $id) { id } }', variables: { id: randomUUID() } }),
  getPaymentLink: () => ({ query: 'query($id: ID!) { paymentLink(id: $id) { id } }', variables: { id: randomUUID() } }),
  listPaymentLinks: () => ({ query: '{ paymentLinks(first: 1) { edges { cursor } } }' }),

  listAccounts: () => ({ query: '{ accounts { id } }' }),
  getAccountStats: () => ({ query: '{ accountStats { __typename } }' }),
  getAccount: (f) => ({ query: 'query($id: ID!) { account(id: $id) { id } }', variables: { id: f.accountId } }),
  listAccountEntries: (f) => ({ query: 'query($id: ID!) { account(id: $id) { entries(limit: 1) { __typename } } }', variables: { id: f.accountId } }),
  adjustAccount: () => ({
    query: 'mutation($org: ID!) { adjustAccount(organizationId: $org, amount: 1, reason: "policy probe") { id } }',
    variables: { org: randomUUID() },
  }),

  listWebhooks: () => ({ query: '{ webhooks { id } }' }),
  listWebhookDeliveries: () => ({ query: '{ webhookDeliveries(first: 1) { totalCount } }' }),
  createWebhook: (f) => ({
    query: 'mutation($org: ID) { createWebhook(organizationId: $org, url: "ftp://not-a-webhook") { __typename } }',
    variables: { org: f.organizationId },
  }),
  rotateWebhookSecret: () => ({ query: 'mutation($id: ID!) { rotateWebhookSecret(id: $id) { __typename } }', variables: { id: randomUUID() } }),
  deleteWebhook: () => ({ query: 'mutation($id: ID!) { deleteWebhook(id: $id) { id } }', variables: { id: randomUUID() } }),
  redeliverWebhook: () => ({ query: 'mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', variables: { id: randomUUID() } }),
  sendTestWebhook: () => ({ query: 'mutation($id: ID!) { sendTestWebhook(id: $id) { id } }', variables: { id: randomUUID() } }),
  redeliverFailedWebhooks: () => ({
    query: 'mutation($id: ID) { redeliverFailedWebhooks(since: "2026-01-01T00:00:00Z", webhookId: $id) }',
    variables: { id: randomUUID() },
  }),

  getOrganization: (f) => ({ query: 'query($id: ID!) { organization(id: $id) { id } }', variables: { id: f.organizationId } }),
  listOrganizations: () => ({ query: '{ organizations(limit: 1) { __typename } }' }),
  createOrganization: () => ({ query: 'mutation { createOrganization(input: { name: "" }) { id } }' }),
  updateOrganization: () => ({
    query: 'mutation($id: ID!) { updateOrganization(id: $id, input: { verified: true }) { id } }',
    variables: { id: randomUUID() },
  }),
  // An empty name is refused after the policy (nothing changes).
  updateBusinessProfile: (f) => ({
    query: 'mutation($org: ID) { updateBusinessProfile(organizationId: $org, name: "") { id } }',
    variables: { org: f.organizationId },
  }),
  listApiKeys: (f) => ({ query: 'query($org: ID!) { apiKeys(organizationId: $org) { id } }', variables: { org: f.organizationId } }),
  createApiKey: () => ({ query: 'mutation($org: ID!) { createApiKey(organizationId: $org, scope: read) { __typename } }', variables: { org: randomUUID() } }),
  revokeApiKey: () => ({ query: 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', variables: { id: randomUUID() } }),
  listSwitches: () => ({ query: '{ switches { name } }' }),
  transactionStats: () => ({ query: '{ transactionStats(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z", interval: DAY) { count } }' }),
  payoutStats: () => ({ query: '{ payoutStats(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z", interval: DAY) { count } }' }),
  refundStats: () => ({ query: '{ refundStats(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z", interval: DAY) { count } }' }),
  conversionStats: () => ({ query: '{ conversionStats(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { created } }' }),
  timeToPayStats: () => ({ query: '{ timeToPayStats(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { count } }' }),
  topOrganizations: () => ({ query: '{ topOrganizations(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { organizationId } }' }),
  setSwitch: () => ({ query: 'mutation($on: Boolean!) { setSwitch(name: wave, on: $on) { name } }', variables: { on: true } }),
  // An admin's probe issues one analyst token: harmless in the test database, and refused to every other principal.
  createOperatorToken: () => ({ query: 'mutation { createOperatorToken(role: analyst) { operatorToken { id } } }' }),
  listOperatorTokens: () => ({ query: '{ operatorTokens { id } }' }),
  revokeOperatorToken: () => ({ query: 'mutation($id: ID!) { revokeOperatorToken(id: $id) { id } }', variables: { id: randomUUID() } }),

  // The dashboard's people: no key or operator reads `me` or enrols (only a session has one); the
  // team and its audit log are the owner's and operators' (test/integration/users cover sessions).
  me: () => ({ query: '{ me { email } }' }),
  startTwoFactorEnrolment: () => ({ query: 'mutation { startTwoFactorEnrolment { secret } }' }),
  confirmTwoFactorEnrolment: () => ({ query: 'mutation { confirmTwoFactorEnrolment(code: "000000") }' }),
  disableTwoFactor: () => ({ query: 'mutation { disableTwoFactor(code: "000000") { email } }' }),
  regenerateRecoveryCodes: () => ({ query: 'mutation { regenerateRecoveryCodes(code: "000000") }' }),
  listMembers: (f) => ({ query: 'query($org: ID) { members(organizationId: $org) { email } }', variables: { org: f.organizationId } }),
  // An invalid email: allowed callers stop at validation, nobody is invited.
  inviteMember: (f) => ({
    query: 'mutation($org: ID) { inviteMember(organizationId: $org, email: "not an email") { email } }',
    variables: { org: f.organizationId },
  }),
  changeMemberRole: () => ({ query: 'mutation($id: ID!) { changeMemberRole(userId: $id, role: viewer) { email } }', variables: { id: randomUUID() } }),
  removeMember: () => ({ query: 'mutation($id: ID!) { removeMember(userId: $id) { email } }', variables: { id: randomUUID() } }),
  // Leaves the requirement as it is (off) for an organisation that has no users.
  setTeamTwoFactorRequired: (f) => ({
    query: 'mutation($org: ID) { setTeamTwoFactorRequired(organizationId: $org, required: false) { id } }',
    variables: { org: f.organizationId },
  }),
  getMerchantHome: () => ({ query: '{ merchantHome { failedDeliveries } }' }),
  getCapabilities: () => ({ query: '{ capabilities { capability } }' }),
  listAuditEvents: (f) => ({
    query: 'query($org: ID) { auditEvents(organizationId: $org, first: 1) { nodes { action } } }',
    variables: { org: f.organizationId },
  }),
};

/** REST calls of the merchant API (v2; v1's delete for the operation only v1 has). */
const REST: Partial<Record<Operation, (f: Fixture) => { method: string; path: string; body?: unknown }>> = {
  createTransaction: () => ({ method: 'POST', path: '/api/v2/transactions', body: transactionBody({ products: [] }) }),
  getTransaction: () => ({ method: 'GET', path: `/api/v2/transactions/${randomUUID()}` }),
  listTransactions: () => ({ method: 'GET', path: '/api/v2/transactions?limit=1' }),
  cancelTransaction: () => ({ method: 'DELETE', path: `/api/v2/transactions/${randomUUID()}` }),
  refundTransaction: () => ({ method: 'GET', path: `/api/v2/refund/${randomUUID()}` }),
  cancelOrRefundTransaction: () => ({ method: 'DELETE', path: `/api/v1/transaction/delete-transaction?order_id=${randomUUID()}` }),
  createPayout: () => ({ method: 'POST', path: '/api/v2/payouts', body: {} }),
  getPayout: () => ({ method: 'GET', path: `/api/v2/payouts/${randomUUID()}` }),
  listPayouts: () => ({ method: 'GET', path: '/api/v2/payouts?limit=1' }),
  createPaymentLink: () => ({ method: 'POST', path: '/api/v2/payment-links', body: { name: '' } }),
  deactivatePaymentLink: () => ({ method: 'DELETE', path: `/api/v2/payment-links/${randomUUID()}` }),
  getPaymentLink: () => ({ method: 'GET', path: `/api/v2/payment-links/${randomUUID()}` }),
  listPaymentLinks: () => ({ method: 'GET', path: '/api/v2/payment-links?limit=1' }),
  createPayoutBatch: () => ({ method: 'POST', path: '/api/v2/payout-batches', body: { items: [] } }),
  startPayoutBatch: () => ({ method: 'POST', path: `/api/v2/payout-batches/${randomUUID()}/start` }),
  cancelPayoutBatch: () => ({ method: 'POST', path: `/api/v2/payout-batches/${randomUUID()}/cancel` }),
  getPayoutBatch: () => ({ method: 'GET', path: `/api/v2/payout-batches/${randomUUID()}` }),
  listPayoutBatchItems: () => ({ method: 'GET', path: `/api/v2/payout-batches/${randomUUID()}/items` }),
  listAccounts: () => ({ method: 'GET', path: '/api/v2/accounts' }),
  getAccountStats: () => ({ method: 'GET', path: '/api/v2/accounts/stats' }),
  getAccount: (f) => ({ method: 'GET', path: `/api/v2/accounts/${f.accountId}` }),
};

/** The CSV exports (src/rest/exports): merchant keys and operator tokens on one route each; filters that match nothing. */
const EXPORTS: Partial<Record<Operation, (f: Fixture) => string>> = {
  exportTransactions: () => '/exports/transactions.csv?search=policy-probe',
  exportPayouts: () => '/exports/payouts.csv?search=policy-probe',
  exportPayoutBatchItems: (f) => `/exports/payout-batches/${f.batchId}/items.csv`,
};

/**
 * Rows no probe above reaches, and why: the checkout page's view has no principal but the customer
 * holding the order id (test/integration/... checkout tests cover it), and so have a payment link's
 * page and its form (test/e2e/payment-link-page.test.ts).
 */
const NOT_ON_GRAPHQL_OR_REST: readonly Operation[] = ['getCheckout', 'getPaymentLinkPage', 'payPaymentLink'];

/**
 * The subscriptions' operations, read from the schema: every principal subscribes to each of them
 * over Server-Sent Events in test/integration/graphql/access-sweep.test.ts (a plain JSON POST of a
 * subscription is refused with 406, so they are not walked here).
 */
const SUBSCRIBED = new Set(
  Object.values(schema.getSubscriptionType()?.getFields() ?? {}).map(
    (field) => (field.extensions?.pothosOptions as { authScopes?: { run?: Operation } } | undefined)?.authScopes?.run,
  ),
);

const OPERATIONS = Object.keys(ACCESS_POLICY) as Operation[];
const tokens = new Map<string, string>();
const fixture: Fixture = { organizationId: '', accountId: '', batchId: '' };

beforeAll(async () => {
  const organization = await gateway.createOrganization({ name: 'Access policy walk' });
  fixture.organizationId = organization.id;
  fixture.accountId = organization.accounts.find((account) => account.name === 'main')!.id;
  fixture.batchId = (
    await gateway.ctx.db.payoutBatch.create({ data: { organizationId: organization.id, itemCount: 0, validCount: 0, totalAmount: 0n, totalFees: 0n } })
  ).id;
  for (const scope of SCOPES) tokens.set(`key:${scope}`, await gateway.createKey(organization.id, scope));
  tokens.set('operator:admin', gateway.adminToken);
  for (const role of ['analyst', 'support'] as const) {
    const token = `gw_op_${randomBytes(32).toString('base64url')}`;
    await gateway.ctx.db.operatorToken.create({ data: { role, prefix: token.slice(0, 14), tokenDigest: sha256Hex(token) } });
    tokens.set(`operator:${role}`, token);
  }
});

const AUTH_CODES = new Set(['FORBIDDEN', 'UNAUTHENTICATED', 'ORGANIZATION_BLOCKED', 'ORGANIZATION_INACTIVE']);

describe('the access table, walked through GraphQL', () => {
  it("reaches every row (but the checkout page's) through GraphQL, REST, the CSV exports or a subscription", () => {
    const unreached = OPERATIONS.filter((operation) => !GRAPHQL[operation] && !REST[operation] && !EXPORTS[operation] && !SUBSCRIBED.has(operation));
    expect([...SUBSCRIBED].sort()).toEqual(['payoutBatchProgress', 'payoutBatchStatusChanged', 'payoutStatusChanged', 'transactionStatusChanged']);
    expect(unreached).toEqual(NOT_ON_GRAPHQL_OR_REST);
  });

  it.each(OPERATIONS.filter((operation) => GRAPHQL[operation]))('%s: every principal gets what the table says', async (operation) => {
    const rule: AccessRule = ACCESS_POLICY[operation];
    const mismatches: string[] = [];
    for (const principal of PRINCIPALS) {
      const { query, variables } = GRAPHQL[operation]!(fixture);
      const response = await gateway.graphql(query, variables ?? {}, tokens.get(nameOf(principal)));
      const errors: { message: string; extensions?: { code?: string } }[] = response.body.errors ?? [];
      const refusal = errors.find((error) => AUTH_CODES.has(error.extensions?.code ?? ''));
      const want = expected(rule, principal);
      const got = !refusal
        ? 'allowed'
        : refusal.message === ERRORS.operator_forbidden.message
          ? 'operator_forbidden'
          : refusal.message === ERRORS.permission_denied.message
            ? 'permission_denied'
            : `other: ${JSON.stringify(refusal)}`;
      if (refusal && refusal.extensions?.code !== 'FORBIDDEN') mismatches.push(`${nameOf(principal)}: refused with ${refusal.extensions?.code}`);
      if (got !== want) mismatches.push(`${nameOf(principal)}: table says ${want}, GraphQL answered ${got} ${JSON.stringify(response.body).slice(0, 300)}`);
      if (response.status >= 500) mismatches.push(`${nameOf(principal)}: HTTP ${response.status}`);
    }
    expect(mismatches).toEqual([]);
  });
});

describe('the access table, walked through REST', () => {
  it.each(OPERATIONS.filter((operation) => REST[operation]))(
    '%s: every key scope gets what the table says; operator tokens are no API keys (401)',
    async (operation) => {
      const rule: AccessRule = ACCESS_POLICY[operation];
      const mismatches: string[] = [];
      for (const principal of PRINCIPALS) {
        const { method, path, body } = REST[operation]!(fixture);
        const v1 = path.startsWith('/api/v1/');
        const response = await gateway.rest(method, path, { key: tokens.get(nameOf(principal)), ...(body !== undefined && { body }) });
        const message = v1 ? response.body?.Detail : response.body?.error;
        if (principal.kind === 'operator') {
          if (response.status !== 401 || message !== ERRORS.invalid_api_key.message)
            mismatches.push(`${nameOf(principal)}: expected 401 Invalid API key, got ${response.status} ${JSON.stringify(response.body)}`);
          continue;
        }
        const want = expected(rule, principal);
        const refused = response.status === 403 && message === ERRORS.permission_denied.message;
        const got = refused ? 'permission_denied' : response.status === 401 || response.status === 403 ? `other ${response.status}` : 'allowed';
        if (got !== want) mismatches.push(`${nameOf(principal)}: table says ${want}, REST answered ${response.status} ${JSON.stringify(response.body)}`);
        if (response.status >= 500) mismatches.push(`${nameOf(principal)}: HTTP ${response.status}`);
      }
      expect(mismatches).toEqual([]);
    },
  );
});

describe('the access table, walked through the CSV exports', () => {
  it.each(OPERATIONS.filter((operation) => EXPORTS[operation]))('%s: every key scope and operator role gets what the table says', async (operation) => {
    const rule: AccessRule = ACCESS_POLICY[operation];
    const mismatches: string[] = [];
    for (const principal of PRINCIPALS) {
      const response = await gateway.rest('GET', EXPORTS[operation]!(fixture), { key: tokens.get(nameOf(principal)) });
      const message = response.status === 200 ? undefined : response.body?.error;
      const want = expected(rule, principal);
      const got =
        response.status === 200
          ? 'allowed'
          : message === ERRORS.permission_denied.message
            ? 'permission_denied'
            : message === ERRORS.operator_forbidden.message
              ? 'operator_forbidden'
              : `other ${response.status}`;
      if (got !== want)
        mismatches.push(`${nameOf(principal)}: table says ${want}, the export answered ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    }
    expect(mismatches).toEqual([]);
  });
});
