/**
 * REST v2 and GraphQL are two thin adapters over the same domain operations: the same input must
 * give the same outcome through both. Parity, errors: the same refusal, with the same status, wording and code, through REST and GraphQL.
 * Each scenario is written once against a Surface (test/support/surfaces/transactions.ts) and run through
 * both, each on its own fresh organisation.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DomainError, ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors.js';
import { revokeApiKey, setSwitch, updateOrganization } from '../../src/domain/operations.js';
import { useGateway, transactionBody, type MerchantOptions } from '../support/gateway.js';
import { type Failure, type Outcome, type Surface, must, failureOf, type Merchant, product, transactionSurfaces } from '../support/surfaces/transactions.js';

const gateway = useGateway();
const { surfaces: SURFACES, newMerchant } = transactionSurfaces(gateway);

// ---------------------------------------------------------------------------------------------
// Errors: every refusal is the same refusal through both.
// ---------------------------------------------------------------------------------------------

interface ErrorScenario {
  name: string;
  code: ErrorCode;
  detail?: string;
  merchant?: MerchantOptions;
  /** Prepares what it needs (through the same surface or the database) and makes the refused call. */
  act(surface: Surface, merchant: Merchant): Promise<Outcome<unknown>>;
}

const create = (body: Record<string, unknown>) => (surface: Surface, merchant: Merchant) => surface.create(merchant.key, body);

/** A transaction of this merchant, created through the surface under test, then moved to `status` in the database. */
async function transactionIn(surface: Surface, merchant: Merchant, status?: 'paid' | 'paid_and_blocked' | 'refunded'): Promise<string> {
  const { orderId } = must(await surface.create(merchant.key, transactionBody()), `${surface.name} create`);
  if (status) {
    await gateway.ctx.db.transaction.update({ where: { id: orderId }, data: { status, selectedPaymentMethod: 'wave', paidAt: new Date() } });
  }
  return orderId;
}

/** Another organisation's transaction. */
async function foreignTransaction(surface: Surface): Promise<string> {
  return transactionIn(surface, await newMerchant());
}

const errorScenarios: ErrorScenario[] = [
  // POST /transactions: request rules
  { name: 'no payment method ([])', code: 'no_payment_method', act: create(transactionBody({ method_of_payment: [] })) },
  { name: 'no product ([])', code: 'no_product', act: create(transactionBody({ products: [] })) },
  { name: 'total of 10 (price 10 x 1)', code: 'invalid_total', act: create(transactionBody({ products: [product('Bonbon', 10)] })) },
  { name: 'total of 10 (price 5 x 2)', code: 'invalid_total', act: create(transactionBody({ products: [product('Bonbon', 5, 2)] })) },
  { name: 'total of 0 (free product)', code: 'invalid_total', act: create(transactionBody({ products: [product('Gift', 0)] })) },
  { name: 'zero quantity', code: 'invalid_total', act: create(transactionBody({ products: [product('Mafé', 4000, 0)] })) },
  { name: 'negative quantity', code: 'invalid_total', act: create(transactionBody({ products: [product('Mafé', 4000, 1), product('Refund', 100, -1)] })) },
  { name: 'invalid success url', code: 'invalid_url', act: create(transactionBody({ success_url: 'not a url' })) },
  { name: 'non-http error url', code: 'invalid_url', act: create(transactionBody({ error_url: 'ftp://shop.example.sn/erreur' })) },
  { name: 'percent-encoded url', code: 'encoded_url', act: create(transactionBody({ success_url: 'https://shop.example.sn/merci%20beaucoup' })) },
  { name: 'invalid phone', code: 'invalid_phone', act: create(transactionBody({ customer: { first_name: 'Awa', phone: '77 123' } })) },
  {
    name: 'blank product name',
    code: 'invalid_request_body',
    detail: 'products[0].name is required',
    act: create(transactionBody({ products: [product('  ', 100)] })),
  },
  {
    name: 'negative price',
    code: 'invalid_request_body',
    detail: 'products[1].price must be a non-negative integer',
    act: create(transactionBody({ products: [product('Mafé', 4000), product('Discount', -500)] })),
  },
  {
    name: 'too many products',
    code: 'invalid_request_body',
    detail: 'at most 100 products',
    act: create(transactionBody({ products: Array.from({ length: 101 }, (_, i) => product(`Item ${i}`, 100)) })),
  },
  {
    name: 'description too long',
    code: 'invalid_request_body',
    detail: 'products[0].description is longer than 1000 characters',
    act: create(transactionBody({ products: [product('Mafé', 4000, 1, 'x'.repeat(1001))] })),
  },

  // POST /transactions: organisation rules
  { name: 'escrow not enabled', code: 'escrow_not_enabled', act: create(transactionBody({ is_escrow: true })) },
  {
    name: 'method not allowed for the organisation',
    code: 'method_not_allowed',
    detail: 'orange_money',
    merchant: { allowedMethods: ['wave'] },
    act: create(transactionBody({ method_of_payment: ['wave', 'orange_money'] })),
  },
  {
    name: 'amount below the organisation minimum',
    code: 'amount_out_of_limits',
    detail: 'the minimum is 5000 XOF',
    merchant: { update: { minTransactionAmount: 5000 } },
    act: create(transactionBody()),
  },
  {
    name: 'amount above the organisation maximum',
    code: 'amount_out_of_limits',
    detail: 'the maximum is 2999 XOF',
    merchant: { update: { maxTransactionAmount: 2999 } },
    act: create(transactionBody()),
  },
  {
    name: 'amount above the gateway maximum',
    code: 'amount_out_of_limits',
    detail: 'the maximum is 1000000000000 XOF',
    merchant: { verified: true },
    act: create(transactionBody({ products: [product('Airliner', 1_000_000_000_000, 2)] })),
  },
  {
    name: 'monthly limit of an unverified organisation',
    code: 'monthly_limit_reached',
    act: async (surface, merchant) => {
      must(await surface.create(merchant.key, transactionBody({ products: [product('Scooter', 150_000)] })), 'first transaction');
      return surface.create(merchant.key, transactionBody({ products: [product('Helmet', 50_001)] }));
    },
  },
  {
    name: 'business profile incomplete (no sector)',
    code: 'business_profile_incomplete',
    merchant: { businessSector: '' },
    act: create(transactionBody()),
  },
  {
    name: 'transactions switched off by the operator',
    code: 'transactions_disabled',
    act: async (surface, merchant) => {
      await setSwitch(gateway.ctx, gateway.operator, 'transactions', false);
      try {
        return await surface.create(merchant.key, transactionBody());
      } finally {
        await setSwitch(gateway.ctx, gateway.operator, 'transactions', true);
      }
    },
  },

  // GET / DELETE
  { name: 'get: unknown order id', code: 'transaction_not_found', act: (s, m) => s.get(m.key, randomUUID()) },
  { name: 'get: malformed order id', code: 'transaction_not_found', act: (s, m) => s.get(m.key, 'not-a-uuid') },
  { name: "get: another organisation's transaction", code: 'transaction_not_found', act: async (s, m) => s.get(m.key, await foreignTransaction(s)) },
  { name: 'cancel: unknown order id', code: 'transaction_not_found', act: (s, m) => s.cancel(m.key, randomUUID()) },
  { name: "cancel: another organisation's transaction", code: 'transaction_not_found', act: async (s, m) => s.cancel(m.key, await foreignTransaction(s)) },
  {
    name: 'cancel twice',
    code: 'already_deleted',
    act: async (s, m) => {
      const orderId = await transactionIn(s, m);
      must(await s.cancel(m.key, orderId), 'first cancel');
      return s.cancel(m.key, orderId);
    },
  },
  { name: 'cancel a paid transaction', code: 'cannot_delete_paid', act: async (s, m) => s.cancel(m.key, await transactionIn(s, m, 'paid')) },
  {
    name: 'cancel a transaction held in escrow',
    code: 'cannot_delete_paid',
    act: async (s, m) => s.cancel(m.key, await transactionIn(s, m, 'paid_and_blocked')),
  },
  { name: 'cancel a refunded transaction', code: 'cannot_delete_paid', act: async (s, m) => s.cancel(m.key, await transactionIn(s, m, 'refunded')) },

  // Lists: invalid queries reach the same domain rule
  {
    name: 'list: min amount above max amount',
    code: 'invalid_query',
    detail: 'min_amount is greater than max_amount',
    act: (s, m) => s.list(m.key, { minAmount: 5000, maxAmount: 100 }),
  },
  { name: 'list: page 0', code: 'invalid_query', detail: 'page must be an integer from 1 to 100000', act: (s, m) => s.list(m.key, { page: 0 }) },
  { name: 'list: limit 0', code: 'invalid_query', detail: 'limit must be a positive integer', act: (s, m) => s.list(m.key, { limit: 0 }) },
  {
    name: 'list: search too long',
    code: 'invalid_query',
    detail: 'search is longer than 100 characters',
    act: (s, m) => s.list(m.key, { search: 'a'.repeat(101) }),
  },

  // Access
  { name: 'permission denied: payout key creates', code: 'permission_denied', merchant: { scope: 'payout' }, act: create(transactionBody()) },
  { name: 'permission denied: read key creates', code: 'permission_denied', merchant: { scope: 'read' }, act: create(transactionBody()) },
  { name: 'permission denied: write key reads one', code: 'permission_denied', merchant: { scope: 'write' }, act: (s, m) => s.get(m.key, randomUUID()) },
  { name: 'permission denied: write key lists', code: 'permission_denied', merchant: { scope: 'write' }, act: (s, m) => s.list(m.key, {}) },
  { name: 'permission denied: read key cancels', code: 'permission_denied', merchant: { scope: 'read' }, act: (s, m) => s.cancel(m.key, randomUUID()) },
  {
    name: 'permission denied: management key cancels',
    code: 'permission_denied',
    merchant: { scope: 'management' },
    act: (s, m) => s.cancel(m.key, randomUUID()),
  },
  {
    name: 'inactive organisation creates',
    code: 'organization_inactive',
    merchant: { update: { status: 'inactive' } },
    act: create(transactionBody()),
  },
  {
    name: 'inactive organisation cancels',
    code: 'organization_inactive',
    act: async (s, m) => {
      const orderId = await transactionIn(s, m);
      await updateOrganization(gateway.ctx, gateway.operator, m.organizationId, { status: 'inactive' });
      return s.cancel(m.key, orderId);
    },
  },
  {
    name: 'inactive organisation with a key of the wrong scope writes (status before scope)',
    code: 'organization_inactive',
    merchant: { scope: 'read', update: { status: 'inactive' } },
    act: create(transactionBody()),
  },
  { name: 'blocked organisation creates', code: 'organization_blocked', merchant: { update: { status: 'blocked' } }, act: create(transactionBody()) },
  {
    name: 'blocked organisation reads one',
    code: 'organization_blocked',
    merchant: { update: { status: 'blocked' } },
    act: (s, m) => s.get(m.key, randomUUID()),
  },
  { name: 'blocked organisation lists', code: 'organization_blocked', merchant: { update: { status: 'blocked' } }, act: (s, m) => s.list(m.key, {}) },
  {
    name: 'blocked organisation cancels',
    code: 'organization_blocked',
    merchant: { update: { status: 'blocked' } },
    act: (s, m) => s.cancel(m.key, randomUUID()),
  },
  { name: 'unknown API key', code: 'invalid_api_key', act: (s) => s.list(`gw_sk_${'x'.repeat(43)}`, {}) },
  {
    name: 'revoked API key',
    code: 'invalid_api_key',
    act: async (s, m) => {
      for (const { id } of await gateway.ctx.db.apiKey.findMany({ where: { organizationId: m.organizationId } }))
        await revokeApiKey(gateway.ctx, gateway.operator, id);
      return s.create(m.key, transactionBody());
    },
  },
];

describe('error parity: the same refusal through both', () => {
  it('covers every domain error a merchant can meet on transactions', () => {
    const covered = new Set(errorScenarios.map((scenario) => scenario.code));
    const merchantTransactionErrors: ErrorCode[] = [
      'invalid_api_key',
      'organization_inactive',
      'permission_denied',
      'organization_blocked',
      'invalid_request_body',
      'invalid_query',
      'invalid_phone',
      'no_payment_method',
      'no_product',
      'invalid_total',
      'amount_out_of_limits',
      'invalid_url',
      'encoded_url',
      'escrow_not_enabled',
      'method_not_allowed',
      'monthly_limit_reached',
      'business_profile_incomplete',
      'transactions_disabled',
      'transaction_not_found',
      'cannot_delete_paid',
      'already_deleted',
    ];
    expect(merchantTransactionErrors.filter((code) => !covered.has(code))).toEqual([]);
  });

  it.each(errorScenarios)('$name → $code', async (scenario) => {
    const failures: Record<string, Failure> = {};
    for (const surface of SURFACES) {
      const merchant = await newMerchant(scenario.merchant);
      failures[surface.name] = failureOf(await scenario.act(surface, merchant), surface.name);
    }
    const rest = failures.rest!;
    const graphql = failures.graphql!;
    const expected = new DomainError(scenario.code, scenario.detail ?? '');

    expect(rest, 'REST v2').toEqual({ status: expected.status, message: expected.message });
    expect(graphql.status, 'GraphQL extensions.status vs REST status').toBe(rest.status);
    expect(graphql.message, 'GraphQL message vs REST body.error').toBe(rest.message);
    expect(graphql.code, 'GraphQL extensions.code vs catalogue').toBe(ERROR_CATALOGUE[scenario.code].graphqlCode);
  });

  it('a refused create leaves nothing behind on either surface', async () => {
    for (const surface of SURFACES) {
      const merchant = await newMerchant({ update: { minTransactionAmount: 5000 } });
      failureOf(await surface.create(merchant.key, transactionBody()), surface.name);
      expect(await gateway.ctx.db.transaction.count({ where: { organizationId: merchant.organizationId } })).toBe(0);
    }
  });
});
