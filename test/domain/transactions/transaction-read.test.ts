/**
 * The one-statement read of a transaction with its products must give exactly what Prisma's own
 * two-query `include` gives: same fields, same types (bigint, Date, enum arrays), same order.
 * A column added to the schema and forgotten in the SQL fails here.
 */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import { createTransaction } from '../../../src/domain/transactions/createTransaction.js';
import { findVisibleTransaction } from '../../../src/domain/transactions/transactions.js';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();

/** Prisma's own read of a transaction with its products (in the merchant's order): the reference. */
const withOrderedProducts = { products: { orderBy: { position: 'asc' as const } } };

async function created(products: { name: string; price: number; quantity: number; description?: string; category?: string }[]) {
  const organization = await gateway.createOrganization({ verified: true });
  const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
  const access = authorizeMerchant(caller, 'createTransaction');
  const { value } = await createTransaction(gateway.ctx, access, {
    methodOfPayment: ['orange_money', 'wave'],
    products,
    customer: { firstName: 'Awa', lastName: 'Diop', phone: '+221771234567' },
  });
  return { organizationId: organization.id, id: value.transaction.id };
}

describe('findVisibleTransaction', () => {
  it('equals Prisma’s include read, field for field and type for type', async () => {
    const { organizationId, id } = await created([
      { name: 'Thiéboudienne', price: 999_999_999_000, quantity: 1, description: 'plat', category: 'food' },
      { name: 'Bissap', price: 1, quantity: 3 },
    ]);
    await gateway.ctx.db.transaction.update({ where: { id }, data: { status: 'paid', selectedPaymentMethod: 'wave', paidAt: new Date(), fees: 15n } });
    const expected = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id }, include: withOrderedProducts });
    expect(await findVisibleTransaction(gateway.ctx.db, organizationId, id)).toStrictEqual(expected);
    expect(await findVisibleTransaction(gateway.ctx.db, null, id)).toStrictEqual(expected);
  });

  it('hides another organisation’s transaction exactly like a missing one', async () => {
    const { id } = await created([{ name: 'x', price: 100, quantity: 1 }]);
    const other = await gateway.createOrganization();
    await expect(findVisibleTransaction(gateway.ctx.db, other.id, id)).rejects.toMatchObject({ code: 'transaction_not_found' });
    await expect(findVisibleTransaction(gateway.ctx.db, other.id, 'not-a-uuid')).rejects.toMatchObject({ code: 'transaction_not_found' });
  });
});
