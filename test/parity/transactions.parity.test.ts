/**
 * REST v2 and GraphQL are two thin adapters over the same domain operations: the same input must
 * give the same outcome through both. Parity, success: the same request gives the same transaction, through REST and GraphQL.
 * Each scenario is written once against a Surface (test/support/surfaces/transactions.ts) and run through
 * both, each on its own fresh organisation.
 */
import { describe, expect, it } from 'vitest';
import { updateOrganization } from '../../src/domain/operations.js';
import { useGateway, transactionBody, type MerchantOptions } from '../support/gateway.js';
import {
  type CanonicalTransaction,
  type Created,
  must,
  type Merchant,
  comparable,
  product,
  transactionSurfaces,
  createdViewOf,
} from '../support/surfaces/transactions.js';

const gateway = useGateway();
const { surfaces: SURFACES, rest: restSurface, graphql: graphqlSurface, newMerchant } = transactionSurfaces(gateway);

// ---------------------------------------------------------------------------------------------
// Success: the same request creates the same transaction through both.
// ---------------------------------------------------------------------------------------------

interface SuccessScenario {
  name: string;
  merchant?: MerchantOptions;
  body: Record<string, unknown>;
  /** What the transaction must be (on both surfaces). */
  expected: Partial<ReturnType<typeof comparable>>;
}

const successScenarios: SuccessScenario[] = [
  {
    name: 'the standard request',
    body: transactionBody(),
    expected: {
      amount: 3000,
      fees: 0,
      status: 'pending',
      currency: 'XOF',
      methodOfPayment: ['wave', 'orange_money'],
      selectedPaymentMethod: null,
      customer: { firstName: 'Awa', lastName: 'Diop', phone: '+221771234567' },
      products: [{ name: 'Bissap juice', price: 1500, quantity: 2, description: '1 L bottle' }],
      isEscrow: false,
      isMerchant: false,
      feesCustomerSide: false,
      successUrl: 'https://shop.example.sn/merci',
      errorUrl: 'https://shop.example.sn/erreur',
      paid: false,
    },
  },
  {
    name: 'a minimal request (no customer, no URLs, no description): default redirect pages',
    body: { method_of_payment: ['wave'], products: [product('Ticket', 500)] },
    expected: {
      amount: 500,
      methodOfPayment: ['wave'],
      customer: { firstName: null, lastName: null, phone: null },
      products: [{ name: 'Ticket', price: 500, quantity: 1, description: null }],
      successUrl: `${'CHECKOUT'}/checkout/:order_id/success`,
      errorUrl: `${'CHECKOUT'}/checkout/:order_id/error`,
    },
  },
  {
    name: 'escrow, merchant and customer-side fees on an escrow-enabled organisation',
    merchant: { escrowEnabled: true },
    body: transactionBody({ is_escrow: true, is_merchant: true, fees_customer_side: true }),
    expected: { amount: 3000, isEscrow: true, isMerchant: true, feesCustomerSide: true },
  },
  {
    name: 'several products, repeated methods, a phone with spaces',
    body: transactionBody({
      method_of_payment: ['orange_money', 'wave', 'orange_money'],
      products: [product('Thiakry', 750, 3, 'Pot'), product('Mafé', 4000, 1), product('Eau', 11, 2)],
      customer: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221 77 123-45-67' },
    }),
    expected: {
      amount: 750 * 3 + 4000 + 22,
      methodOfPayment: ['orange_money', 'wave'],
      customer: { firstName: 'Moussa', lastName: 'Ndiaye', phone: '+221771234567' },
      products: [
        { name: 'Thiakry', price: 750, quantity: 3, description: 'Pot' },
        { name: 'Mafé', price: 4000, quantity: 1, description: null },
        { name: 'Eau', price: 11, quantity: 2, description: null },
      ],
    },
  },
  {
    name: 'a total of exactly the organisation limits (min = max = total)',
    merchant: { update: { minTransactionAmount: 3000, maxTransactionAmount: 3000 } },
    body: transactionBody(),
    expected: { amount: 3000 },
  },
  {
    name: 'a total of 11 XOF (just above the minimum)',
    body: transactionBody({ products: [product('Bonbon', 11)] }),
    expected: { amount: 11 },
  },
  {
    name: 'an organisation allowed one method, asked for that method',
    merchant: { allowedMethods: ['orange_money'] },
    body: transactionBody({ method_of_payment: ['orange_money'] }),
    expected: { methodOfPayment: ['orange_money'] },
  },
  {
    name: 'a verified organisation above the unverified monthly limit',
    merchant: { verified: true },
    body: transactionBody({ products: [product('Moto', 250_000)] }),
    expected: { amount: 250_000 },
  },
];

describe('success parity: the same request gives the same transaction', () => {
  it.each(successScenarios)('$name', async ({ merchant: merchantOptions, body, expected }) => {
    const results: Record<string, { merchant: Merchant; created: Created; full: CanonicalTransaction }> = {};
    for (const surface of SURFACES) {
      const merchant = await newMerchant(merchantOptions);
      const created = must(await surface.create(merchant.key, body), `${surface.name} create`);
      expect(created.checkoutUrl, surface.name).toBe(`${gateway.checkoutUrl}/checkout/${created.orderId}`);
      const full = must(await surface.get(merchant.key, created.orderId), `${surface.name} get`);
      // The create answer agrees with what is stored.
      expect(created.view, `${surface.name}: create answer vs get`).toEqual(createdViewOf(full));
      results[surface.name] = { merchant, created, full };
    }
    const rest = results.rest!;
    const graphql = results.graphql!;

    // The two transactions are the same (but for ids and instants).
    expect(comparable(graphql.full)).toEqual(comparable(rest.full));
    const withCheckout = JSON.parse(JSON.stringify(expected).split('CHECKOUT').join(gateway.checkoutUrl));
    expect(comparable(rest.full)).toMatchObject(withCheckout);

    // Each transaction reads the same through the other surface too (one record, two renderings).
    for (const { merchant, full } of [rest, graphql]) {
      const viaRest = must(await restSurface.get(merchant.key, full.orderId), 'cross get (rest)');
      const viaGraphql = must(await graphqlSurface.get(merchant.key, full.orderId), 'cross get (graphql)');
      expect(viaGraphql).toEqual(viaRest);
    }
  });

  it('cancelling gives the same cancelled transaction through both', async () => {
    const cancelled: CanonicalTransaction[] = [];
    for (const surface of SURFACES) {
      const merchant = await newMerchant();
      const created = must(await surface.create(merchant.key, transactionBody()), 'create');
      must(await surface.cancel(merchant.key, created.orderId), `${surface.name} cancel`);
      const viaRest = must(await restSurface.get(merchant.key, created.orderId), 'get (rest)');
      const viaGraphql = must(await graphqlSurface.get(merchant.key, created.orderId), 'get (graphql)');
      expect(viaGraphql).toEqual(viaRest);
      cancelled.push(viaRest);
    }
    expect(cancelled[0]!.status).toBe('cancelled');
    expect(comparable(cancelled[1]!)).toEqual(comparable(cancelled[0]!));
  });

  it('an inactive organisation still reads (get and list) through both', async () => {
    const merchant = await newMerchant();
    const created = must(await restSurface.create(merchant.key, transactionBody()), 'create');
    await updateOrganization(gateway.ctx, gateway.operator, merchant.organizationId, { status: 'inactive' });
    const viaRest = must(await restSurface.get(merchant.key, created.orderId), 'get (rest)');
    const viaGraphql = must(await graphqlSurface.get(merchant.key, created.orderId), 'get (graphql)');
    expect(viaGraphql).toEqual(viaRest);
    const listRest = must(await restSurface.list(merchant.key, {}), 'list (rest)');
    const listGraphql = must(await graphqlSurface.list(merchant.key, {}), 'list (graphql)');
    expect(listGraphql).toEqual(listRest);
    expect(listRest.transactions.map((t) => t.orderId)).toEqual([created.orderId]);
  });
});
