/**
 * createTransaction's rules, called as an adapter calls it (no HTTP): each row is an input and
 * the catalogue code it must be refused with, or what it must store. The wire (status, wording,
 * body shape) is proven by the REST and GraphQL tests; this file proves the rule itself, fast.
 */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import type { ErrorCode } from '../../../src/domain/errors.js';
import { UNVERIFIED_MONTHLY_LIMIT } from '../../../src/domain/money.js';
import { createTransaction, type CreateTransactionInput } from '../../../src/domain/transactions/createTransaction.js';
import type { MerchantOptions } from '../../support/gateway.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

const valid = (overrides: Partial<CreateTransactionInput> = {}): CreateTransactionInput => ({
  methodOfPayment: ['wave'],
  products: [{ name: 'Bissap', price: 1500, quantity: 2 }],
  ...overrides,
});

async function accessFor(options: MerchantOptions = {}) {
  const organization = await gateway.createOrganization({ verified: true, ...options });
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
  return authorizeMerchant(caller, 'createTransaction');
}

const refusalOf = async (promise: Promise<unknown>): Promise<ErrorCode | 'accepted'> =>
  promise.then(
    () => 'accepted' as const,
    (error: { code?: ErrorCode }) => error.code ?? (String(error) as ErrorCode),
  );

describe('createTransaction refuses', () => {
  it.each<[string, Partial<CreateTransactionInput>, ErrorCode]>([
    ['no method', { methodOfPayment: [] }, 'no_payment_method'],
    ['an unknown method', { methodOfPayment: ['cash'] }, 'unsupported_payment_method'],
    ['no product', { products: [] }, 'no_product'],
    ['a total of 10', { products: [{ name: 'x', price: 10, quantity: 1 }] }, 'invalid_total'],
    ['a zero quantity', { products: [{ name: 'x', price: 100, quantity: 0 }] }, 'invalid_total'],
    ['a negative quantity', { products: [{ name: 'x', price: 100, quantity: -1 }] }, 'invalid_total'],
    ['a negative price', { products: [{ name: 'x', price: -1, quantity: 1 }] }, 'invalid_request_body'],
    ['a blank product name', { products: [{ name: '  ', price: 100, quantity: 1 }] }, 'invalid_request_body'],
    ['101 products', { products: Array.from({ length: 101 }, () => ({ name: 'x', price: 100, quantity: 1 })) }, 'invalid_request_body'],
    ['a total above 10^12', { products: [{ name: 'x', price: 1_000_000_000_000, quantity: 2 }] }, 'amount_out_of_limits'],
    ['a relative success URL', { successUrl: '/merci' }, 'invalid_url'],
    ['a percent-encoded URL', { errorUrl: 'https://shop.example/a%20b' }, 'encoded_url'],
    ['a javascript: URL', { successUrl: 'javascript:alert(1)' }, 'invalid_url'],
    ['a malformed customer phone', { customer: { phone: '771234567' } }, 'invalid_phone'],
    ['escrow without escrow enabled', { isEscrow: true }, 'escrow_not_enabled'],
  ])('%s', async (_case, overrides, code) => {
    expect(await refusalOf(createTransaction(gateway.ctx, await accessFor(), valid(overrides)))).toBe(code);
  });

  it('a method the organisation does not allow', async () => {
    const access = await accessFor({ allowedMethods: ['wave'] });
    expect(await refusalOf(createTransaction(gateway.ctx, access, valid({ methodOfPayment: ['orange_money'] })))).toBe('method_not_allowed');
  });

  it('an incomplete business profile', async () => {
    const access = await accessFor({ businessSector: '' });
    expect(await refusalOf(createTransaction(gateway.ctx, access, valid()))).toBe('business_profile_incomplete');
  });

  it('amounts outside the organisation’s own limits, on both sides', async () => {
    const access = await accessFor({ update: { minTransactionAmount: 1000, maxTransactionAmount: 5000 } });
    expect(await refusalOf(createTransaction(gateway.ctx, access, valid({ products: [{ name: 'x', price: 999, quantity: 1 }] })))).toBe('amount_out_of_limits');
    expect(await refusalOf(createTransaction(gateway.ctx, access, valid({ products: [{ name: 'x', price: 5001, quantity: 1 }] })))).toBe(
      'amount_out_of_limits',
    );
    expect(await refusalOf(createTransaction(gateway.ctx, access, valid({ products: [{ name: 'x', price: 5000, quantity: 1 }] })))).toBe('accepted');
  });

  it('an unverified organisation past its monthly limit, counting exactly up to it', async () => {
    const access = await accessFor({ verified: false });
    const lot = (price: number) => valid({ products: [{ name: 'Lot', price, quantity: 1 }] });
    expect(await refusalOf(createTransaction(gateway.ctx, access, lot(UNVERIFIED_MONTHLY_LIMIT - 100)))).toBe('accepted');
    expect(await refusalOf(createTransaction(gateway.ctx, access, lot(101)))).toBe('monthly_limit_reached');
    expect(await refusalOf(createTransaction(gateway.ctx, access, lot(100)))).toBe('accepted');
  });
});

describe('createTransaction stores', () => {
  it('the total exactly, products in order, defaults for what was left out, and nothing when refused', async () => {
    const access = await accessFor();
    const { value } = await createTransaction(
      gateway.ctx,
      access,
      valid({
        products: [
          { name: 'A', price: 333, quantity: 3 },
          { name: 'B', price: 1, quantity: 2 },
        ],
      }),
    );
    expect(value.transaction).toMatchObject({ amount: 1001n, status: 'pending', feesCustomerSide: false, isEscrow: false, isMerchant: false, fees: 0n });
    expect(value.transaction.products.map((product) => [product.name, product.position])).toEqual([
      ['A', 0],
      ['B', 1],
    ]);
    expect(value.transaction.successUrl).toBe(`${value.checkoutUrl}/success`);
    await refusalOf(createTransaction(gateway.ctx, access, valid({ products: [] })));
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId: access.organizationId } })).toBe(1);
  });
});
