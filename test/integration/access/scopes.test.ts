/**
 * Spec, Authentication 4-5: each endpoint accepts the scopes of its table row; any other scope
 * gets 403 `You don't have permission to perform this action`, and a refused call changes nothing.
 * openapi/v2.yaml repeats the table as `x-scopes`, which must equal the code's MERCHANT_OPERATIONS.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT_OPERATIONS } from '../../../src/domain/access/scopes.js';
import { V2_DEFINITION } from '../../../src/rest/v2/surface.js';
import { useGateway, transactionBody } from '../../support/gateway.js';

const PERMISSION_DENIED = { error: "You don't have permission to perform this action" };

const SCOPES = ['checkout', 'read', 'write', 'readAndWrite', 'payout', 'management'] as const;
type Scope = (typeof SCOPES)[number];

/** The spec's table, written out here independently of src/domain/access/scopes.ts. */
const SPEC_SCOPES = {
  createTransaction: ['checkout', 'write', 'readAndWrite'],
  listTransactions: ['checkout', 'read', 'readAndWrite'],
  getTransaction: ['checkout', 'read', 'readAndWrite'],
  cancelTransaction: ['checkout', 'write', 'readAndWrite'],
  refundTransaction: ['checkout', 'write', 'readAndWrite', 'management'],
  createPayout: ['payout'],
  listPayouts: ['payout', 'read'],
  getPayout: ['payout', 'read'],
  listAccounts: ['read', 'readAndWrite', 'management'],
  getAccountStats: ['read', 'readAndWrite', 'management'],
  getAccount: ['read', 'readAndWrite', 'management'],
} as const satisfies Record<string, readonly Scope[]>;

const gateway = useGateway();
let organizationId: string;
let checkoutKey: string;
const keys = {} as Record<Scope, string>;

beforeAll(async () => {
  // verified: the 4 x 6 table creates a few dozen transactions, well clear of any monthly cap.
  const merchant = await gateway.merchant({ scope: 'checkout', verified: true });
  organizationId = merchant.organization.id;
  checkoutKey = merchant.key;
  for (const scope of SCOPES) keys[scope] = await gateway.createKey(organizationId, scope);
});

/** A fresh pending transaction, created with a checkout key. */
async function pendingTransaction(): Promise<string> {
  const created = await gateway.rest('POST', '/api/v2/transactions', { key: checkoutKey, body: transactionBody() });
  expect(created.status).toBe(200);
  return created.body.order_id;
}

const transactionCount = () => gateway.ctx.db.transaction.count({ where: { organizationId } });

interface Endpoint {
  name: string;
  operation: keyof typeof SPEC_SCOPES;
  call: (key: string) => Promise<{ status: number; body: any }>;
  /** What an accepted call leaves behind, checked after a successful call. */
  accepted: (response: { status: number; body: any }) => Promise<void>;
  /** Checks that a refused call changed nothing. */
  refused: () => Promise<void>;
}

/** Per-test state for the endpoints that need an existing transaction. */
let orderId: string;
let countBefore: number;

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /api/v2/transactions',
    operation: 'createTransaction',
    call: (key) => gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() }),
    accepted: async (response) => {
      expect(response.body.transaction_status).toBe('pending');
      expect(await transactionCount()).toBe(countBefore + 1);
    },
    refused: async () => {
      expect(await transactionCount()).toBe(countBefore);
    },
  },
  {
    name: 'GET /api/v2/transactions',
    operation: 'listTransactions',
    call: (key) => gateway.rest('GET', '/api/v2/transactions?limit=100', { key }),
    accepted: async (response) => {
      expect(response.body.transactions.map((transaction: { order_id: string }) => transaction.order_id)).toContain(orderId);
    },
    refused: async () => {},
  },
  {
    name: 'GET /api/v2/transactions/{order_id}',
    operation: 'getTransaction',
    call: (key) => gateway.rest('GET', `/api/v2/transactions/${orderId}`, { key }),
    accepted: async (response) => {
      expect(response.body.order_id).toBe(orderId);
    },
    refused: async () => {},
  },
  {
    name: 'DELETE /api/v2/transactions/{order_id}',
    operation: 'cancelTransaction',
    call: (key) => gateway.rest('DELETE', `/api/v2/transactions/${orderId}`, { key }),
    accepted: async () => {
      const transaction = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
      expect(transaction.status).toBe('cancelled');
    },
    refused: async () => {
      const transaction = await gateway.ctx.db.transaction.findUniqueOrThrow({ where: { id: orderId } });
      expect(transaction.status).toBe('pending');
      expect(transaction.isDeleted).toBe(false);
    },
  },
];

const CASES = ENDPOINTS.flatMap((endpoint) =>
  SCOPES.map((scope) => ({ endpoint, scope, allowed: (SPEC_SCOPES[endpoint.operation] as readonly Scope[]).includes(scope) })),
);

describe('REST v2 enforces the scope table on the transaction endpoints', () => {
  it('covers every endpoint with every scope', () => {
    expect(CASES).toHaveLength(4 * 6);
    expect(CASES.filter((c) => c.allowed)).toHaveLength(12);
  });

  it.each(CASES.map((c) => [c.endpoint.name, c.scope, c.allowed ? 'accepts' : 'refuses with 403', c] as const))(
    '%s with a %s key: %s',
    async (_name, scope, _verdict, { endpoint, allowed }) => {
      orderId = await pendingTransaction();
      countBefore = await transactionCount();

      const response = await endpoint.call(keys[scope]);

      if (allowed) {
        expect(response.status).toBe(200);
        await endpoint.accepted(response);
      } else {
        expect(response.status).toBe(403);
        expect(response.body).toStrictEqual(PERMISSION_DENIED);
        await endpoint.refused();
      }
    },
  );

  it('refuses a POST before validating its body: a refused malformed POST is 403, not 400, and writes nothing', async () => {
    const before = await transactionCount();
    const response = await gateway.rest('POST', '/api/v2/transactions', { key: keys.read, rawBody: '{"products": [' });
    expect(response.status).toBe(403);
    expect(response.body).toStrictEqual(PERMISSION_DENIED);
    expect(await transactionCount()).toBe(before);
  });

  it('refuses a DELETE of a missing transaction with 403 for a key without the scope (no existence probe)', async () => {
    const response = await gateway.rest('DELETE', '/api/v2/transactions/00000000-0000-4000-8000-000000000000', { key: keys.payout });
    expect(response.status).toBe(403);
    expect(response.body).toStrictEqual(PERMISSION_DENIED);
  });
});

describe('openapi/v2.yaml x-scopes', () => {
  it('equal MERCHANT_OPERATIONS and the spec table for all 11 operations', async () => {
    const document = parse(await readFile(V2_DEFINITION, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
    const fromYaml: Record<string, string[]> = {};
    for (const pathItem of Object.values(document.paths)) {
      for (const [method, operation] of Object.entries(pathItem)) {
        if (!METHODS.includes(method)) continue;
        const {
          operationId,
          'x-scopes': scopes,
          'x-extension': extension,
        } = operation as { operationId?: string; 'x-scopes'?: string[]; 'x-extension'?: string };
        expect(operationId, `${method} operation without operationId`).toBeTypeOf('string');
        // The gateway's own extensions (payment links) are not the spec's table: their scopes are
        // checked against the access policy in test/integration/rest-v2/payment-links.test.ts.
        if (extension) continue;
        expect(fromYaml, `duplicate operationId ${operationId}`).not.toHaveProperty(operationId!);
        fromYaml[operationId!] = [...(scopes ?? [])].sort();
      }
    }
    const fromCode = Object.fromEntries(Object.entries(MERCHANT_OPERATIONS).map(([id, access]) => [id, [...access.scopes].sort()]));
    const fromSpec = Object.fromEntries(Object.entries(SPEC_SCOPES).map(([id, scopes]) => [id, [...scopes].sort()]));

    expect(Object.keys(fromYaml)).toHaveLength(11);
    expect(fromYaml).toStrictEqual(fromCode);
    expect(fromCode).toStrictEqual(fromSpec);
  });

  it('uses only the six scopes, in their exact camel case', async () => {
    const document = parse(await readFile(V2_DEFINITION, 'utf8')) as { paths: Record<string, Record<string, { 'x-scopes'?: string[] }>> };
    const used = Object.values(document.paths).flatMap((pathItem) => Object.values(pathItem).flatMap((operation) => operation?.['x-scopes'] ?? []));
    expect(used.length).toBeGreaterThan(0);
    for (const scope of used) expect(SCOPES).toContain(scope);
  });
});
