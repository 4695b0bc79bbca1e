/**
 * REST v2 and GraphQL are two thin adapters over the same domain operations: the same input must
 * give the same outcome through both. Parity, lists: the same filters give the same order ids in the same order, through REST and GraphQL.
 * Each scenario is written once against a Surface (test/support/surfaces/transactions.ts) and run through
 * both, each on its own fresh organisation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../support/gateway.js';
import { type ListFilter, must, type Merchant, product, transactionSurfaces } from '../support/surfaces/transactions.js';

const gateway = useGateway();
const { surfaces: SURFACES, rest: restSurface, graphql: graphqlSurface, newMerchant } = transactionSurfaces(gateway);

// ---------------------------------------------------------------------------------------------
// Lists: the same filters give the same transactions, in the same order.
// ---------------------------------------------------------------------------------------------

describe('list parity: the same filters give the same order ids in the same order', () => {
  let merchant: Merchant;
  /** Every transaction of the organisation, as stored. */
  let stored: {
    id: string;
    amount: number;
    status: string;
    isDeleted: boolean;
    isEscrow: boolean;
    isMerchant: boolean;
    createdAt: Date;
    firstName: string | null;
    lastName: string | null;
    phone: string | null;
    productNames: string[];
    selected: string | null;
  }[];
  let middle: Date;
  let anOrderId: string;

  beforeAll(async () => {
    merchant = await newMerchant({ verified: true, escrowEnabled: true });
    const bodies: Record<string, unknown>[] = [
      transactionBody(), // Awa Diop, Bissap juice, 3000
      transactionBody({ products: [product('Thiakry', 500)], customer: { first_name: 'Moussa', last_name: 'Ndiaye', phone: '+221781112233' } }),
      transactionBody({ products: [product('Mafé', 12_000)], customer: { first_name: 'Fatou', last_name: 'Sow', phone: '+221701234567' } }),
      transactionBody({ products: [product('Yassa', 8000, 2)], is_merchant: true, customer: { first_name: 'Awa', last_name: 'Fall' } }),
      transactionBody({ products: [product('Bissap syrup', 750, 4)], is_escrow: true, customer: { first_name: 'Ibrahima', last_name: 'BISSAPO' } }),
      transactionBody({ products: [product('Ceebu jën', 25_000)], customer: undefined }),
      transactionBody({ products: [product('Thiéboudienne', 4000)], customer: { first_name: 'Aminata', phone: '+221 77 999 88 77' } }),
    ];
    // And enough plain ones to need a second page of 20.
    for (let i = 0; i < 18; i++) bodies.push(transactionBody({ products: [product(`Article ${i}`, 100 + i * 100)], customer: { first_name: `Client${i}` } }));

    const ids: string[] = [];
    for (const [index, body] of bodies.entries()) {
      // Half through each surface: a list must not care how a transaction was made.
      const surface = SURFACES[index % 2]!;
      ids.push(must(await surface.create(merchant.key, body), `fixture ${index}`).orderId);
    }
    must(await restSurface.cancel(merchant.key, ids[1]!), 'cancel fixture 1');
    must(await graphqlSurface.cancel(merchant.key, ids[10]!), 'cancel fixture 10');
    const paid = (id: string, status: 'paid' | 'paid_and_blocked' | 'refunded', method: 'wave' | 'orange_money') =>
      gateway.ctx.db.transaction.update({ where: { id }, data: { status, selectedPaymentMethod: method, paidAt: new Date() } });
    await paid(ids[2]!, 'paid', 'wave');
    await paid(ids[5]!, 'refunded', 'wave');
    await paid(ids[6]!, 'paid_and_blocked', 'orange_money');
    await paid(ids[12]!, 'paid', 'orange_money');
    anOrderId = ids[3]!;

    const rows = await gateway.ctx.db.transaction.findMany({ where: { organizationId: merchant.organizationId }, include: { products: true } });
    stored = rows
      .map((row) => ({
        id: row.id,
        amount: Number(row.amount),
        status: row.status,
        isDeleted: row.isDeleted,
        isEscrow: row.isEscrow,
        isMerchant: row.isMerchant,
        createdAt: row.createdAt,
        firstName: row.customerFirstName,
        lastName: row.customerLastName,
        phone: row.customerPhone,
        productNames: row.products.map((p) => p.name),
        selected: row.selectedPaymentMethod,
      }))
      // Newest first, ties by id (the operation's order).
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    expect(stored).toHaveLength(bodies.length);
    middle = stored[Math.floor(stored.length / 2)]!.createdAt;
  });

  type Row = (typeof stored)[number];
  const visible = (t: Row) => !t.isDeleted;
  const has = (text: string) => (t: Row) =>
    [t.firstName, t.lastName, t.phone, ...t.productNames].some((value) => value?.toLowerCase().includes(text.toLowerCase()));

  interface ListCase {
    name: string;
    filter: () => ListFilter;
    /** Which stored transactions match (before paging). */
    matches: (t: Row) => boolean;
  }

  const cases: ListCase[] = [
    { name: 'no filter (first page of 20, cancelled hidden)', filter: () => ({}), matches: visible },
    { name: 'page 2 of 20', filter: () => ({ page: 2 }), matches: visible },
    { name: 'status pending', filter: () => ({ status: 'pending' }), matches: (t) => visible(t) && t.status === 'pending' },
    { name: 'status paid', filter: () => ({ status: 'paid' }), matches: (t) => t.status === 'paid' },
    { name: 'status cancelled (shown without includeDeleted)', filter: () => ({ status: 'cancelled' }), matches: (t) => t.status === 'cancelled' },
    { name: 'status refunded', filter: () => ({ status: 'refunded' }), matches: (t) => t.status === 'refunded' },
    { name: 'includeDeleted', filter: () => ({ includeDeleted: true, limit: 100 }), matches: () => true },
    { name: 'includeDeleted false', filter: () => ({ includeDeleted: false, limit: 100 }), matches: visible },
    { name: 'min amount', filter: () => ({ minAmount: 3000 }), matches: (t) => visible(t) && t.amount >= 3000 },
    { name: 'max amount', filter: () => ({ maxAmount: 3000 }), matches: (t) => visible(t) && t.amount <= 3000 },
    {
      name: 'min and max amount',
      filter: () => ({ minAmount: 1000, maxAmount: 12_000 }),
      matches: (t) => visible(t) && t.amount >= 1000 && t.amount <= 12_000,
    },
    { name: 'min = max amount', filter: () => ({ minAmount: 3000, maxAmount: 3000, includeDeleted: true }), matches: (t) => t.amount === 3000 },
    { name: 'search a product name, any case', filter: () => ({ search: 'BISSAP' }), matches: (t) => visible(t) && has('bissap')(t) },
    { name: 'search a first name', filter: () => ({ search: 'awa' }), matches: (t) => visible(t) && has('awa')(t) },
    { name: 'search part of a phone', filter: () => ({ search: '77123' }), matches: (t) => visible(t) && has('77123')(t) },
    { name: 'search an order id', filter: () => ({ search: anOrderId }), matches: (t) => t.id === anOrderId },
    { name: 'search with no match', filter: () => ({ search: 'zzz-nothing' }), matches: () => false },
    { name: 'search among deleted too', filter: () => ({ search: 'thiakry', includeDeleted: true }), matches: has('thiakry') },
    { name: 'isEscrow', filter: () => ({ isEscrow: true }), matches: (t) => visible(t) && t.isEscrow },
    { name: 'isMerchant', filter: () => ({ isMerchant: true }), matches: (t) => visible(t) && t.isMerchant },
    { name: 'isMerchant false', filter: () => ({ isMerchant: false, limit: 100 }), matches: (t) => visible(t) && !t.isMerchant },
    {
      name: 'paymentMethod (the method paid with)',
      filter: () => ({ paymentMethod: 'orange_money' }),
      matches: (t) => visible(t) && t.selected === 'orange_money',
    },
    {
      name: 'customerPhone, spaces ignored',
      filter: () => ({ customerPhone: '+221 77 999 88 77' }),
      matches: (t) => visible(t) && t.phone === '+221779998877',
    },
    { name: 'startDate', filter: () => ({ startDate: middle.toISOString() }), matches: (t) => visible(t) && t.createdAt >= middle },
    { name: 'endDate', filter: () => ({ endDate: middle.toISOString() }), matches: (t) => visible(t) && t.createdAt <= middle },
    { name: 'limit 5', filter: () => ({ limit: 5 }), matches: visible },
    { name: 'limit 5, page 2', filter: () => ({ limit: 5, page: 2 }), matches: visible },
    { name: 'limit 5, last page', filter: () => ({ limit: 5, page: 5 }), matches: visible },
    { name: 'a page past the end', filter: () => ({ limit: 5, page: 99 }), matches: visible },
    { name: 'limit above the maximum is capped at 100', filter: () => ({ limit: 500, includeDeleted: true }), matches: () => true },
    {
      name: 'everything at once',
      filter: () => ({ status: 'pending', minAmount: 500, maxAmount: 20_000, search: 'a', includeDeleted: true, limit: 3, page: 2 }),
      matches: (t) => t.status === 'pending' && t.amount >= 500 && t.amount <= 20_000 && has('a')(t),
    },
  ];

  it.each(cases)('$name', async ({ filter: filterOf, matches }) => {
    const filter = filterOf();
    const rest = must(await restSurface.list(merchant.key, filter), 'rest list');
    const graphql = must(await graphqlSurface.list(merchant.key, filter), 'graphql list');

    const restIds = rest.transactions.map((t) => t.orderId);
    expect(graphql.transactions.map((t) => t.orderId)).toEqual(restIds);
    expect(graphql.pagination).toEqual(rest.pagination);
    // And the items themselves render the same.
    expect(graphql.transactions).toEqual(rest.transactions);

    // Both are right, not merely equal.
    const all = stored.filter(matches).map((t) => t.id);
    const page = filter.page ?? 1;
    const limit = Math.min(filter.limit ?? 20, 100);
    expect(restIds).toEqual(all.slice((page - 1) * limit, page * limit));
    expect(rest.pagination).toEqual({ page, limit, totalCount: all.length, totalPages: Math.ceil(all.length / limit) });
  });

  it('the fixture exercises the filters (no vacuous comparisons)', () => {
    for (const { name, filter, matches } of cases) {
      if (name === 'search with no match' || name === 'a page past the end') continue;
      const all = stored.filter(matches);
      const page = filter().page ?? 1;
      const limit = Math.min(filter().limit ?? 20, 100);
      expect(all.slice((page - 1) * limit, page * limit).length, name).toBeGreaterThan(0);
    }
  });
});
