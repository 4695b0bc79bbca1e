/** Steps shared by the account and money-in tests (not a test file itself). */
import { expect } from 'vitest';
import { transactionBody, type TestGateway } from './gateway.js';
import { type PaymentMethod, SandboxPayDocument } from './graphql/generated.js';
import { graphqlDataTyped } from './graphql/typed.js';

/** The spec's Account fields, exactly. */
export const ACCOUNT_FIELDS = ['balance', 'created_at', 'currency', 'id', 'is_active', 'name', 'organization_id', 'type', 'updated_at'];

/** A wallet the sandbox always pays from (docs/sandbox.md's phone table). */
const PAYING_PHONE = '+221770000001';

export interface CreateOptions {
  price?: number;
  feesCustomerSide?: boolean;
  isEscrow?: boolean;
  methods?: ('wave' | 'orange_money')[];
}

/** Creates a pending transaction through REST v2 (one product of `price`); returns its order id. */
export async function pendingTransaction(gateway: TestGateway, key: string, options: CreateOptions = {}): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', {
    key,
    body: transactionBody({
      method_of_payment: options.methods ?? ['wave', 'orange_money'],
      products: [{ name: 'Thiakry', price: options.price ?? 10_000, quantity: 1 }],
      fees_customer_side: options.feesCustomerSide ?? false,
      is_escrow: options.isEscrow ?? false,
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.order_id;
}

/** Pays through the operator's GraphQL mutation and insists it was collected; returns the transaction. */
export async function sandboxPay(gateway: TestGateway, orderId: string, method: PaymentMethod = 'wave', phone = PAYING_PHONE) {
  const { sandboxPay: payment } = await graphqlDataTyped(gateway, SandboxPayDocument, { orderId, method, phone });
  expect(payment.outcome, JSON.stringify(payment)).toBe('paid');
  expect(payment.reason).toBeNull();
  return payment.transaction;
}

/** main and escrow balances, read straight from the database. */
export async function balances(gateway: TestGateway, organizationId: string): Promise<{ main: bigint; escrow: bigint }> {
  const accounts = await gateway.ctx.db.account.findMany({ where: { organizationId } });
  const of = (name: string) => accounts.find((account) => account.name === name)?.balance ?? 0n;
  return { main: of('main'), escrow: of('escrow') };
}

/** The sum of every entry of each of these postings (merchant and gateway sides): all must be 0n. */
export async function postingSums(gateway: TestGateway, postingIds: string[]): Promise<Record<string, bigint>> {
  const entries = await gateway.ctx.db.ledgerEntry.findMany({ where: { postingId: { in: postingIds } } });
  const sums: Record<string, bigint> = {};
  for (const entry of entries) sums[entry.postingId] = (sums[entry.postingId] ?? 0n) + entry.amount;
  return sums;
}
