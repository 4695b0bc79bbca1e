/**
 * createTransaction inserts the transaction and its products in one statement and returns what
 * it inserted: that record must be exactly what Prisma's `include` read of the same row gives
 * (fields, types, product order), on PostgreSQL and on the embedded database.
 */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import { createTransaction } from '../../../src/domain/transactions/createTransaction.js';
import { useGateway, type TestGateway } from '../../support/gateway.js';

const postgres = useGateway();
const embedded = useGateway({ embedded: true });

/** Prisma's own read of a transaction with its products (in the merchant's order): the reference. */
const withOrderedProducts = { products: { orderBy: { position: 'asc' as const } } };

async function createdAndRead(gateway: TestGateway) {
  const organization = await gateway.createOrganization({ verified: true, escrowEnabled: true });
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
  const { value } = await createTransaction(gateway.ctx, authorizeMerchant(caller, 'createTransaction'), {
    methodOfPayment: ['orange_money', 'wave', 'orange_money'],
    products: [
      { name: 'Thiéboudienne « maison »', price: 999_999_999_000, quantity: 1, description: 'plat', category: 'food' },
      { name: 'Bissap', price: 1, quantity: 3 },
      { name: 'Eau', price: 0, quantity: 2, description: null, category: null },
    ],
    customer: { firstName: 'Awa', lastName: null, phone: '+221771234567' },
    successUrl: 'https://shop.example.sn/merci',
    feesCustomerSide: true,
    isEscrow: true,
  });
  const read = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: value.transaction.id }, include: withOrderedProducts });
  return { created: value.transaction, read };
}

describe.each([
  ['PostgreSQL', postgres],
  ['embedded PGlite', embedded],
])('createTransaction on %s', (_name, gateway) => {
  it('returns exactly what Prisma’s include read of the new row gives', async () => {
    const { created, read } = await createdAndRead(gateway);
    expect(created).toStrictEqual(read);
    expect(created.products.map((product) => product.position)).toEqual([0, 1, 2]);
    expect(created.methodOfPayment).toEqual(['orange_money', 'wave']);
    expect(created.createdAt).toEqual(created.updatedAt);
  });
});
