/**
 * GraphQL under hostile input (fast-check, seeded): every Query and Mutation field, its variables
 * bent (lone surrogates, NUL, 1e308, 2^63, -0, deep nesting, `__proto__` keys, huge strings,
 * arrays for objects...), hostile literals inlined in documents, hostile documents, bodies and
 * content types, and GET requests. Never a 5xx, every error carries `extensions.code` (never
 * INTERNAL_SERVER_ERROR), and after a refused operation the database is exactly as before.
 *
 * Merchant operations run with a key of the fuzzed merchant (verified and funded, so what the
 * checks let through reaches PostgreSQL); operator mutations aim at a separate "victim"
 * organisation, so an accepted one cannot block the merchant's.
 */
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustAccount } from '../../../src/domain/operations.js';
import {
  encodeHostile,
  fingerprintClient,
  stateFingerprint,
  hostile,
  hostileBody,
  hostileOpaqueId,
  hostileString,
  hostileValue,
  HOSTILE_NUMBERS,
  mutatedBody,
  sendRaw,
  type FieldSetter,
} from '../../support/fuzz.js';
import { transactionBody, useGateway } from '../../support/gateway.js';
import { fuzz, graphqlVerdict } from './helpers.js';

const gateway = useGateway();
let client: pg.Client;
const ids: Record<string, string> = {};
const tokens: Record<'operator' | 'transactions' | 'refunds' | 'payouts' | 'accounts', string> = {} as never;

beforeAll(async () => {
  const { organization, key } = await gateway.merchant({ scope: 'readAndWrite', payoutEnabled: true, verified: true, escrowEnabled: true });
  await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 1_000_000_000, reason: 'float for fuzzed payouts' });
  Object.assign(tokens, {
    operator: gateway.adminToken,
    transactions: key,
    refunds: await gateway.createKey(organization.id, 'management'),
    payouts: await gateway.createKey(organization.id, 'payout'),
    accounts: await gateway.createKey(organization.id, 'read'),
  });
  ids.merchant = organization.id;
  ids.mainAccount = organization.accounts.find((account) => account.name === 'main')!.id;
  const victim = await gateway.merchant({ scope: 'read', payoutEnabled: true, verified: true });
  ids.victim = victim.organization.id;
  ids.victimKey = (await gateway.ctx.db.apiKey.findFirstOrThrow({ where: { organizationId: victim.organization.id } })).id;
  const victimCheckout = await gateway.createKey(victim.organization.id, 'checkout');
  const pending = await gateway.rest('POST', '/api/v2/transactions', { key: victimCheckout, body: transactionBody() });
  ids.pendingOrder = pending.body.order_id;
  client = await fingerprintClient(gateway.databaseUrl);
});
afterAll(async () => {
  await client?.end();
});

interface Operation {
  name: string;
  token: keyof typeof tokens;
  document: string;
  variables: () => Record<string, unknown>;
  fields: FieldSetter[];
}

const set = (...names: string[]): FieldSetter[] =>
  names.map((name) => (body: Record<string, any>, value: unknown) => {
    const path = name.split('.');
    const last = path.pop()!;
    const parent = path.reduce((object, key) => object[key], body);
    parent[last] = value;
  });
const extra: FieldSetter = (body, value) => (body[typeof value === 'string' ? value : 'unexpected'] = value);

const product = { name: 'Bissap juice', price: 1500, quantity: 2, description: '1 L bottle' };
const person = { firstName: 'Awa', lastName: 'Diop', phone: '+221771234567' };
const transactionFilter = {
  status: 'pending',
  search: 'Bissap',
  customerPhone: '+221771234567',
  minAmount: 1,
  maxAmount: 1_000_000,
  startDate: '2020-01-01T00:00:00Z',
  endDate: '2100-01-01T00:00:00Z',
};
const payoutFilter = {
  status: 'completed',
  search: 'invoice',
  recipientPhone: '+221770000001',
  minAmount: 1,
  maxAmount: 1_000_000,
  startDate: '2020-01-01T00:00:00Z',
};

const OPERATIONS: Operation[] = [
  // Queries
  {
    name: 'account',
    token: 'accounts',
    document: 'query($id: ID!) { account(id: $id) { __typename } }',
    variables: () => ({ id: ids.mainAccount }),
    fields: set('id'),
  },
  {
    name: 'accountStats',
    token: 'operator',
    document: 'query($o: ID) { accountStats(organizationId: $o) { __typename } }',
    variables: () => ({ o: ids.victim }),
    fields: set('o'),
  },
  {
    name: 'accounts',
    token: 'accounts',
    document: 'query($o: ID) { accounts(organizationId: $o) { __typename } }',
    variables: () => ({ o: null }),
    fields: set('o'),
  },
  {
    name: 'apiKeys',
    token: 'operator',
    document: 'query($o: ID!) { apiKeys(organizationId: $o) { __typename } }',
    variables: () => ({ o: ids.victim }),
    fields: set('o'),
  },
  {
    name: 'organization',
    token: 'operator',
    document: 'query($id: ID!) { organization(id: $id) { __typename } }',
    variables: () => ({ id: ids.victim }),
    fields: set('id'),
  },
  {
    name: 'organizations',
    token: 'operator',
    document: 'query($l: Int, $p: Int, $s: String, $st: OrganizationStatus) { organizations(limit: $l, page: $p, search: $s, status: $st) { __typename } }',
    variables: () => ({ l: 10, p: 1, s: 'Org', st: 'active' }),
    fields: set('l', 'p', 's', 'st'),
  },
  {
    name: 'payout',
    token: 'payouts',
    document: 'query($id: ID!) { payout(orderId: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'payouts',
    token: 'payouts',
    document: 'query($f: PayoutFilter, $l: Int, $o: ID, $p: Int) { payouts(filter: $f, limit: $l, organizationId: $o, page: $p) { __typename } }',
    variables: () => ({ f: { ...payoutFilter }, l: 10, o: null, p: 1 }),
    fields: set('f', 'f.status', 'f.search', 'f.recipientPhone', 'f.minAmount', 'f.maxAmount', 'f.startDate', 'l', 'o', 'p'),
  },
  {
    name: 'pendingPayouts',
    token: 'operator',
    document: 'query($l: Int, $o: ID, $p: Int) { pendingPayouts(limit: $l, organizationId: $o, page: $p) { __typename } }',
    variables: () => ({ l: 10, o: ids.victim, p: 1 }),
    fields: set('l', 'o', 'p'),
  },
  { name: 'switches', token: 'operator', document: 'query { switches { __typename } }', variables: () => ({}), fields: [extra] },
  {
    name: 'transaction',
    token: 'transactions',
    document: 'query($id: ID!) { transaction(orderId: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'transactions',
    token: 'transactions',
    document: 'query($f: TransactionFilter, $l: Int, $o: ID, $p: Int) { transactions(filter: $f, limit: $l, organizationId: $o, page: $p) { __typename } }',
    variables: () => ({ f: { ...transactionFilter }, l: 10, o: null, p: 1 }),
    fields: set('f', 'f.status', 'f.search', 'f.customerPhone', 'f.minAmount', 'f.maxAmount', 'f.startDate', 'f.endDate', 'l', 'o', 'p'),
  },
  {
    name: 'webhookDeliveries',
    token: 'operator',
    document: 'query($l: Int, $f: WebhookDeliveryFilter, $o: ID) { webhookDeliveries(first: $l, filter: $f, organizationId: $o) { __typename } }',
    variables: () => ({ l: 10, f: { orderId: null, webhookId: null, status: null, since: null }, o: ids.victim }),
    fields: set('l', 'f', 'f.orderId', 'f.webhookId', 'f.status', 'f.since', 'o'),
  },
  {
    name: 'webhooks',
    token: 'operator',
    document: 'query($o: ID) { webhooks(organizationId: $o) { __typename } }',
    variables: () => ({ o: ids.victim }),
    fields: set('o'),
  },
  // Mutations
  {
    name: 'adjustAccount',
    token: 'operator',
    document: 'mutation($a: SafeInt!, $o: ID!, $r: String!) { adjustAccount(amount: $a, organizationId: $o, reason: $r) { __typename } }',
    variables: () => ({ a: 100, o: ids.victim, r: 'fuzz correction' }),
    fields: set('a', 'o', 'r'),
  },
  {
    name: 'approvePayout',
    token: 'operator',
    document: 'mutation($id: ID!) { approvePayout(orderId: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'cancelTransaction',
    token: 'transactions',
    document: 'mutation($id: ID!) { cancelTransaction(orderId: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'createApiKey',
    token: 'operator',
    document: 'mutation($o: ID!, $s: ApiScope!) { createApiKey(organizationId: $o, scope: $s) { __typename } }',
    variables: () => ({ o: ids.victim, s: 'read' }),
    fields: set('o', 's'),
  },
  {
    name: 'createOrganization',
    token: 'operator',
    document: 'mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { __typename } }',
    variables: () => ({ i: { name: 'Fuzz SARL', businessSector: 'retail', allowedMethods: ['wave'], verified: false } }),
    fields: set('i', 'i.name', 'i.businessSector', 'i.allowedMethods', 'i.verified', 'i.escrowEnabled'),
  },
  {
    name: 'createPayout',
    token: 'payouts',
    document: 'mutation($k: String, $i: CreatePayoutInput!) { createPayout(idempotencyKey: $k, input: $i) { __typename } }',
    variables: () => ({
      k: null,
      i: {
        amount: 10_000,
        reason: 'Supplier invoice 42',
        selectedPaymentMethod: 'wave',
        recipient: { firstName: 'Moussa', lastName: 'Ndiaye', phone: '+221770000001' },
      },
    }),
    fields: set(
      'k',
      'i',
      'i.amount',
      'i.reason',
      'i.selectedPaymentMethod',
      'i.recipient',
      'i.recipient.firstName',
      'i.recipient.lastName',
      'i.recipient.phone',
    ),
  },
  {
    name: 'createTransaction',
    token: 'transactions',
    document:
      'mutation($k: String, $i: CreateTransactionInput!, $o: ID) { createTransaction(idempotencyKey: $k, input: $i, organizationId: $o) { __typename } }',
    variables: () => ({
      k: null,
      o: null,
      i: {
        methodOfPayment: ['wave'],
        products: [{ ...product }],
        customer: { ...person },
        successUrl: 'https://shop.example.sn/merci',
        errorUrl: 'https://shop.example.sn/erreur',
      },
    }),
    fields: set(
      'k',
      'o',
      'i',
      'i.methodOfPayment',
      'i.products',
      'i.products.0',
      'i.products.0.name',
      'i.products.0.description',
      'i.products.0.price',
      'i.products.0.quantity',
      'i.customer',
      'i.customer.firstName',
      'i.customer.lastName',
      'i.customer.phone',
      'i.successUrl',
      'i.errorUrl',
      'i.isEscrow',
    ),
  },
  {
    name: 'createWebhook',
    token: 'operator',
    document: 'mutation($o: ID, $u: String!, $v: WebhookVersion) { createWebhook(organizationId: $o, url: $u, version: $v) { __typename } }',
    variables: () => ({ o: ids.victim, u: 'https://93.184.216.34/hooks/gateway', v: 'v2' }),
    fields: set('o', 'u', 'v'),
  },
  {
    name: 'deleteWebhook',
    token: 'operator',
    document: 'mutation($id: ID!) { deleteWebhook(id: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'redeliverWebhook',
    token: 'operator',
    document: 'mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'refundTransaction',
    token: 'refunds',
    document: 'mutation($k: String, $id: ID!) { refundTransaction(idempotencyKey: $k, orderId: $id) { __typename } }',
    variables: () => ({ k: null, id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('k', 'id'),
  },
  {
    name: 'rejectPayout',
    token: 'operator',
    document: 'mutation($id: ID!, $r: String) { rejectPayout(orderId: $id, reason: $r) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000', r: 'no' }),
    fields: set('id', 'r'),
  },
  {
    name: 'releaseEscrow',
    token: 'operator',
    document: 'mutation($id: ID!) { releaseEscrow(orderId: $id) { __typename } }',
    variables: () => ({ id: ids.pendingOrder }),
    fields: set('id'),
  },
  {
    name: 'revokeApiKey',
    token: 'operator',
    document: 'mutation($id: ID!) { revokeApiKey(id: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'rotateWebhookSecret',
    token: 'operator',
    document: 'mutation($id: ID!) { rotateWebhookSecret(id: $id) { __typename } }',
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    fields: set('id'),
  },
  {
    name: 'sandboxPay',
    token: 'operator',
    document: 'mutation($m: PaymentMethod, $id: ID!, $ph: String) { sandboxPay(method: $m, orderId: $id, phone: $ph) { __typename } }',
    variables: () => ({ m: 'wave', id: ids.pendingOrder, ph: '+221770000000' }),
    fields: set('m', 'id', 'ph'),
  },
  {
    name: 'setSwitch',
    token: 'operator',
    document: 'mutation($n: SwitchName!, $on: Boolean!) { setSwitch(name: $n, on: $on) { __typename } }',
    variables: () => ({ n: 'wave', on: true }),
    fields: set('n', 'on'),
  },
  {
    name: 'updateOrganization',
    token: 'operator',
    document: 'mutation($id: ID!, $i: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $i) { __typename } }',
    variables: () => ({
      id: ids.victim,
      i: { businessSector: 'retail', maxTransactionAmount: 1_000_000, minTransactionAmount: 100, maxPayoutAmount: 500_000 },
    }),
    fields: set(
      'id',
      'i',
      'i.businessSector',
      'i.maxTransactionAmount',
      'i.minTransactionAmount',
      'i.maxPayoutAmount',
      'i.allowedMethods',
      'i.status',
      'i.verified',
    ),
  },
];

const post = (token: keyof typeof tokens, body: Buffer, contentType: string | undefined = 'application/json') =>
  sendRaw(`${gateway.url}/graphql`, 'POST', { headers: { authorization: `Bearer ${tokens[token]}` }, body, contentType });
const postJson = (token: keyof typeof tokens, payload: unknown) => post(token, Buffer.from(JSON.stringify(payload)));

/** Every switch back on: an accepted setSwitch must not turn the other properties' operations off. */
async function switchesOn(): Promise<void> {
  for (const name of ['transactions', 'payouts', 'wave', 'orange_money']) {
    await postJson('operator', { query: 'mutation($n: SwitchName!) { setSwitch(name: $n, on: true) { on } }', variables: { n: name } });
  }
}

describe('GraphQL under hostile input: never 5xx, every error coded, nothing written after a refusal', () => {
  it.each(OPERATIONS.map((operation) => [operation.name, operation] as const))('%s with hostile variables', async (_name, operation) => {
    const variables = fc.oneof(
      { weight: 9, arbitrary: fc.constant(null).chain(() => mutatedBody(operation.variables(), operation.fields)) },
      { weight: 1, arbitrary: hostileValue },
    );
    // A refusal answered under an idempotency key is kept to be replayed (docs/api.md#idempotency-key): by design, not a leak.
    const except = operation.document.includes('idempotencyKey') ? ['IdempotencyKey'] : [];
    await fuzz(client, variables, (vars) => postJson(operation.token, { query: operation.document, variables: vars }), graphqlVerdict, { runs: 60, except });
    if (operation.name === 'setSwitch') await switchesOn();
  });

  it('forged global ids in node(id:) and forged cursors in every connection: null or a coded error, never a 500', async () => {
    const forged: { query: string; variables: (value: string) => Record<string, unknown> }[] = [
      { query: 'query($id: ID!) { node(id: $id) { __typename nodeId } }', variables: (id) => ({ id }) },
      { query: 'query($a: String) { transactionsConnection(first: 2, after: $a) { edges { cursor } } }', variables: (a) => ({ a }) },
      { query: 'query($b: String) { transactionsConnection(last: 2, before: $b) { edges { cursor } } }', variables: (b) => ({ b }) },
      { query: 'query($a: String) { payoutsConnection(first: 2, after: $a) { edges { cursor } } }', variables: (a) => ({ a }) },
      {
        query: 'query($o: ID, $a: String) { transactionsConnection(organizationId: $o, first: 1, after: $a) { totalCount } }',
        variables: (a) => ({ o: ids.victim, a }),
      },
    ];
    // Each document is valid: with an honest value it answers data, so the fuzzing below is not a pass on validation errors.
    const honest = Buffer.from(`Transaction:${ids.pendingOrder}`).toString('base64');
    for (const document of forged) {
      const answer = await postJson('operator', {
        query: document.query,
        variables: document.variables(document.query.includes('node(') ? honest : (null as never)),
      });
      expect(answer.body?.errors, document.query).toBeUndefined();
    }
    for (const token of ['operator', 'accounts'] as const) {
      await fuzz(
        client,
        fc.tuple(fc.constantFrom(...forged), hostileOpaqueId),
        ([document, value]) => postJson(token, { query: document.query, variables: document.variables(value) }),
        graphqlVerdict,
        { runs: 80 },
      );
    }
  });

  it('hostile literals inlined in documents (strings, numbers, lists, objects)', async () => {
    const literal = fc.oneof(
      { weight: 4, arbitrary: hostileString.map((text) => JSON.stringify(text)) },
      fc.constantFrom(
        ...HOSTILE_NUMBERS.map(String),
        '9223372036854775808',
        '-0',
        '1e400',
        `${'['.repeat(300)}${']'.repeat(300)}`,
        '{__proto__: 1}',
        '{constructor: {prototype: 1}}',
        '"""\u0000"""',
        '"\\u0000"',
        '"\\ud800"',
        '"\\u{110000}"',
      ),
    );
    const template = fc.constantFrom<[keyof typeof tokens, (literal: string) => string]>(
      ['transactions', (l: string) => `{ transactions(filter: {search: ${l}}) { __typename } }`],
      ['transactions', (l: string) => `{ transactions(limit: ${l}) { __typename } }`],
      ['transactions', (l: string) => `{ transaction(orderId: ${l}) { __typename } }`],
      [
        'transactions',
        (l: string) =>
          `mutation { createTransaction(input: {methodOfPayment: [wave], products: [{name: ${l}, price: 1500, quantity: 1}], customer: {firstName: ${l}}}) { __typename } }`,
      ],
      [
        'payouts',
        (l: string) => `mutation { createPayout(input: {amount: ${l}, selectedPaymentMethod: wave, recipient: {phone: "+221770000001"}}) { __typename } }`,
      ],
      [
        'payouts',
        (l: string) =>
          `mutation { createPayout(input: {amount: 1000, reason: ${l}, selectedPaymentMethod: wave, recipient: {phone: "+221770000001", firstName: ${l}}}) { __typename } }`,
      ],
      ['operator', (l: string) => `mutation { createOrganization(input: {name: ${l}, businessSector: ${l}}) { __typename } }`],
      ['operator', (l: string) => `mutation { rejectPayout(orderId: "00000000-0000-4000-8000-000000000000", reason: ${l}) { __typename } }`],
      ['operator', (l: string) => `{ organizations(search: ${l}) { __typename } }`],
    );
    await fuzz(client, fc.tuple(template, literal), ([[token, document], value]) => postJson(token, { query: document(value) }), graphqlVerdict, { runs: 150 });
  });

  it('hostile documents, bodies and content types', async () => {
    const documents = fc.constantFrom(
      '',
      ' ',
      '{',
      '}'.repeat(1000),
      `{${' __typename'.repeat(5000)} }`,
      `query ${'{ a: __typename '.repeat(200)}${'}'.repeat(200)}`,
      `${'{ transactions { transactions { '.repeat(50)}${'}'.repeat(100)}`,
      'subscription { __typename }',
      'query A { __typename } query A { __typename }',
      'fragment F on Query { ...F } { ...F }',
      '{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }',
      `{ __typename @${'skip(if: false) @'.repeat(100)}include(if: true) }`,
      'query($a: [[[[[[Int]]]]]]) { __typename }',
      '\u0000',
      '{ __typename }\ud800',
    );
    const valid = { query: '{ transactions { __typename } }', variables: {}, operationName: null };
    const inputs = fc.oneof(
      documents.map((query) => hostile(Buffer.from(JSON.stringify({ query })), 'application/json')),
      hostileBody(valid, set('query', 'variables', 'operationName', 'extensions').concat(extra)),
    );
    await fuzz(client, inputs, (body) => post('transactions', body.body, body.contentType), graphqlVerdict, { runs: 200 });
  });

  it('GET /graphql with hostile query strings', async () => {
    const param = fc.oneof(
      hostileString.map((text) => `query=${encodeHostile(text)}`),
      hostileString.map(
        (text) =>
          `query=${encodeURIComponent('query($s: String) { transactions(filter: {search: $s}) { __typename } }')}&variables=${encodeHostile(JSON.stringify({ s: text }))}`,
      ),
      fc.constantFrom(
        'query=%',
        'query=%ED%A0%80',
        'variables=%7B',
        'query={__typename}&variables=[1]',
        'query={__typename}&operationName=%00',
        'query=mutation{setSwitch(name:wave,on:false){on}}',
        'query[]=x',
        '__proto__=1&query={__typename}',
      ),
    );
    await fuzz(
      client,
      param,
      (query) => sendRaw(`${gateway.url}/graphql?${query}`, 'GET', { headers: { authorization: `Bearer ${tokens.transactions}`, accept: 'application/json' } }),
      graphqlVerdict,
      { runs: 120 },
    );
  });

  // A NUL written as a GraphQL escape never passes the body's JSON check: each text argument must meet the rule itself.
  it.each([
    [
      'transactions',
      'mutation { createTransaction(idempotencyKey: $, input: {methodOfPayment: [wave], products: [{name: "Bissap", price: 1500, quantity: 1}]}) { __typename } }',
    ],
    [
      'transactions',
      'mutation { createTransaction(input: {methodOfPayment: [wave], products: [{name: "Bissap", price: 1500, quantity: 1}], successUrl: $}) { __typename } }',
    ],
    [
      'transactions',
      'mutation { createTransaction(input: {methodOfPayment: [wave], products: [{name: "Bissap", price: 1500, quantity: 1}], customer: {phone: $}}) { __typename } }',
    ],
    [
      'payouts',
      'mutation { createPayout(idempotencyKey: $, input: {amount: 1000, selectedPaymentMethod: wave, recipient: {phone: "+221770000001"}}) { __typename } }',
    ],
    ['refunds', 'mutation { refundTransaction(idempotencyKey: $, orderId: "00000000-0000-4000-8000-000000000000") { __typename } }'],
    ['transactions', '{ transactions(filter: {customerPhone: $}) { __typename } }'],
    ['transactions', '{ transaction(orderId: $) { __typename } }'],
    ['operator', 'mutation { createOrganization(input: {name: $}) { __typename } }'],
    ['operator', 'mutation { createOrganization(input: {name: "Fuzz", businessSector: $}) { __typename } }'],
    ['operator', 'mutation { updateOrganization(id: "@victim", input: {businessSector: $}) { __typename } }'],
    ['operator', 'mutation { adjustAccount(amount: 100, organizationId: "@victim", reason: $) { __typename } }'],
    ['operator', 'mutation { createWebhook(organizationId: "@victim", url: $) { __typename } }'],
    ['operator', 'mutation { sandboxPay(orderId: "@pending", phone: $) { __typename } }'],
    ['operator', 'mutation { rejectPayout(orderId: "00000000-0000-4000-8000-000000000000", reason: $) { __typename } }'],
    ['operator', '{ organizations(search: $) { __typename } }'],
    ['operator', '{ webhookDeliveries(organizationId: $) { __typename } }'],
  ] as const)('a NUL escape as a literal (%s: %s) is refused with a code, nothing written', async (token, template) => {
    for (const literal of ['"a\\u0000b"', '"\\u0000"', '"""a\u0000b"""']) {
      const query = template.replace('$', literal).replace('@victim', ids.victim!).replace('@pending', ids.pendingOrder!);
      const before = await stateFingerprint(client, ['IdempotencyKey']);
      const answer = await postJson(token, { query });
      expect(graphqlVerdict(answer), query).toEqual({ refused: true, problem: null });
      expect(await stateFingerprint(client, ['IdempotencyKey']), query).toBe(before);
    }
  });

  it('a lone surrogate or NUL in a variable is BAD_USER_INPUT, first_name included; in a literal too', async () => {
    const document = 'mutation($i: CreateTransactionInput!) { createTransaction(input: $i) { __typename } }';
    for (const text of ['\ud800', 'nul\u0000']) {
      for (const input of [
        { methodOfPayment: ['wave'], products: [{ ...product, name: text }] },
        { methodOfPayment: ['wave'], products: [{ ...product, description: text }] },
        { methodOfPayment: ['wave'], products: [product], customer: { firstName: text } },
      ]) {
        const answer = await postJson('transactions', { query: document, variables: { i: input } });
        expect(answer.status).toBeLessThan(500);
        expect(answer.body.errors?.[0]?.extensions?.code, JSON.stringify(answer.body)).toBe('BAD_USER_INPUT');
        expect(answer.body.errors[0].message).toMatch(/lone surrogate|NUL/);
      }
    }
    const literal = await postJson('transactions', {
      query: 'mutation { createTransaction(input: {methodOfPayment: [wave], products: [{name: "a\\u0000b", price: 1500, quantity: 1}]}) { __typename } }',
    });
    expect(literal.body.errors?.[0]?.extensions?.code, JSON.stringify(literal.body)).toBe('BAD_USER_INPUT');
    expect(literal.body.data).toBeNull();
  });
});
