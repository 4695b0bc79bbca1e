/**
 * Bad input always gets a clear 4xx in the API's error shape and changes nothing. Hundreds of
 * mutations of a valid body (seeded, so a failure replays) are thrown at the create endpoint,
 * and odd paths and queries at the others; none may answer 500 or write a row.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../support/gateway.js';

const gateway = useGateway();
let key: string;
let organizationId: string;
beforeAll(async () => {
  const merchant = await gateway.merchant({ scope: 'readAndWrite', update: { maxTransactionAmount: 10 } });
  // A ceiling of 10 XOF: every create is refused, so any row written would be a bug.
  ({ key } = merchant);
  organizationId = merchant.organization.id;
});

/** mulberry32: a tiny seeded generator, so the same seed gives the same inputs. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, 1e300, -1e300, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, '', ' ', '0', '11', 'wave',
  '\u0000', 'é', '😀'.repeat(50), 'x'.repeat(5000), '%00', '%20', 'javascript:alert(1)', '+221771234567', [], [null], [[]], ['wave', 'bank'],
  {}, { name: 'x' }, { __proto__: { polluted: true } }, { constructor: { prototype: { polluted: true } } },
];

function mutate(body: Record<string, unknown>, next: () => number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const copy = structuredClone(body) as Record<string, any>;
  const paths: ((value: unknown) => void)[] = [
    (v) => (copy.method_of_payment = v),
    (v) => (copy.products = v),
    (v) => (copy.products[0] = v),
    (v) => (copy.products[0].name = v),
    (v) => (copy.products[0].price = v),
    (v) => (copy.products[0].quantity = v),
    (v) => (copy.products[0].description = v),
    (v) => (copy.customer = v),
    (v) => (copy.customer.first_name = v),
    (v) => (copy.customer.phone = v),
    (v) => (copy.success_url = v),
    (v) => (copy.error_url = v),
    (v) => (copy.fees_customer_side = v),
    (v) => (copy.is_escrow = v),
    (v) => (copy.is_merchant = v),
  ];
  const mutations = 1 + Math.floor(next() * 3);
  for (let i = 0; i < mutations; i++) {
    try {
      pick(paths)(pick(ODD_VALUES));
    } catch {
      // An earlier mutation made the parent a primitive: this one has nothing to change.
    }
  }
  return next() < 0.1 ? pick(ODD_VALUES) : copy;
}

describe('bad input', () => {
  it('never answers 500 nor writes a row, for 300 mutated create bodies', async () => {
    const next = random(20261122);
    const surprises: string[] = [];
    for (let i = 0; i < 300; i++) {
      const body = mutate(transactionBody(), next);
      const response = await gateway.rest('POST', '/api/v2/transactions', { key, body });
      const wellFormed = typeof response.body?.error === 'string' && Object.keys(response.body).length === 1;
      if (response.status >= 500 || response.status < 400 || !wellFormed) surprises.push(`${response.status} ${JSON.stringify(response.body)} <- ${JSON.stringify(body).slice(0, 300)}`);
    }
    expect(surprises).toEqual([]);
    expect(await gateway.ctx.db.transaction.count({ where: { organizationId } })).toBe(0);
  });

  it.each([
    '/api/v2/transactions/%',
    '/api/v2/transactions/%E0%A4%A',
    '/api/v2/transactions/..%2F..%2Fetc%2Fpasswd',
    `/api/v2/transactions/${'a'.repeat(3000)}`,
    '/api/v2/transactions?page=%',
    '/api/v2/transactions?search=%00',
    '/api/v2/transactions?start_date=9999999-01-01T00:00:00Z',
    '/api/v2/transactions?min_amount=99999999999999999999999999999',
    '/api/v2/transactions?limit=-0',
    '/api/v2/transactions?search[]=x',
  ])('GET %s answers a 4xx or 200 in the API shape, never 500', async (path) => {
    const response = await gateway.rest('GET', path, { key });
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    if (response.status >= 400) expect(Object.keys(response.body)).toEqual(['error']);
  });
});
