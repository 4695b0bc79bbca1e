/** The payment rules hold on the embedded database (PGlite) too: one credit, a balanced ledger. */
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import { createTransaction, payTransaction } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';
import { balanceOf, expectBalancedLedger } from '../../support/ledger.js';

const gateway = useGateway({ embedded: true });

describe('paying on the embedded database', () => {
  it('credits the net proceeds once, however many payments race', async () => {
    const organization = await gateway.createOrganization({ verified: true });
    const caller: MerchantCaller = { kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization };
    const { value } = await createTransaction(gateway.ctx, authorizeMerchant(caller, 'createTransaction'), {
      methodOfPayment: ['wave'],
      products: [{ name: 'Mafé', price: 2500, quantity: 1 }],
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => payTransaction(gateway.ctx, { kind: 'customer' }, value.transaction.id, { method: 'wave', phone: '+221771234567' })),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(await balanceOf(gateway.db.prisma, organization.id)).toBe(2475n);
    await expectBalancedLedger(gateway.db.prisma);
  });
});
