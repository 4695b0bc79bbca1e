/**
 * The operator side of GraphQL with the admin token: organisations, API keys and kill switches.
 * Effects are checked where they matter: on REST v2, at once.
 */
import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { describe, expect, it } from 'vitest';
import { useGateway, transactionBody } from '../../support/gateway.js';
import {
  type ApiScope,
  CreateApiKeyDocument,
  CreateOrganizationDocument,
  type CreateOrganizationInput,
  CreateTransactionDocument,
  OrganizationDocument,
  RevokeApiKeyDocument,
  SetSwitchDocument,
  SwitchesDocument,
  TransactionCountDocument,
  TransactionOrganizationDocument,
  TransactionsOfEveryOrganizationDocument,
  TransactionsOfOrganizationDocument,
  TypenameDocument,
  UpdateOrganizationDocument,
  type UpdateOrganizationInput,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlRefusalTyped, graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();

const admin = <Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables) => graphqlDataTyped(gateway, document, variables);

const refused = <Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables, token?: string) =>
  graphqlRefusalTyped(gateway, document, variables, token);

const createOrganization = async (input: CreateOrganizationInput) => (await admin(CreateOrganizationDocument, { input })).createOrganization;
const readOrganization = async (id: string) => (await admin(OrganizationDocument, { id })).organization;
const createKey = async (organizationId: string, scope: ApiScope = 'checkout') => (await admin(CreateApiKeyDocument, { organizationId, scope })).createApiKey;
const restCreate = (key: string) => gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() });

describe('createOrganization', () => {
  it('applies the defaults: active, both methods, sector "general", main and escrow accounts at 0', async () => {
    const organization = await createOrganization({ name: '  Boutique Awa  ' });
    expect(organization).toMatchObject({
      name: 'Boutique Awa',
      status: 'active',
      verified: false,
      escrowEnabled: false,
      payoutEnabled: false,
      allowedMethods: ['wave', 'orange_money'],
      businessSector: 'general',
      minTransactionAmount: null,
      maxTransactionAmount: null,
      maxPayoutAmount: null,
    });
    expect(organization.id).toMatch(/^[0-9a-f-]{36}$/);
    const accounts = [...organization.accounts].sort((a: any, b: any) => a.name.localeCompare(b.name));
    expect(accounts).toEqual([
      { id: expect.any(String), name: 'escrow', type: 'escrow', balance: 0, currency: 'XOF', isActive: true },
      { id: expect.any(String), name: 'main', type: 'operating', balance: 0, currency: 'XOF', isActive: true },
    ]);
    // And it is what is stored.
    expect(await readOrganization(organization.id)).toEqual(organization);
  });

  it('takes explicit flags, methods and sector', async () => {
    const organization = await createOrganization({
      name: 'Transport Ndiaye',
      verified: true,
      escrowEnabled: true,
      payoutEnabled: true,
      allowedMethods: ['orange_money'],
      businessSector: ' transport ',
    });
    expect(organization).toMatchObject({
      verified: true,
      escrowEnabled: true,
      payoutEnabled: true,
      allowedMethods: ['orange_money'],
      businessSector: 'transport',
    });
  });

  it('with businessSector "" leaves the sector unset, and the organisation cannot transact until it has one', async () => {
    const organization = await createOrganization({ name: 'Sans secteur', businessSector: '' });
    expect(organization.businessSector).toBeNull();
    expect((await readOrganization(organization.id)).businessSector).toBeNull();

    const { key } = await createKey(organization.id);
    const refusal = await restCreate(key);
    expect(refusal.status).toBe(403);
    expect(refusal.body.error).toMatch(/^Complete your business profile/);

    const updated = (await admin(UpdateOrganizationDocument, { id: organization.id, input: { businessSector: 'food' } })).updateOrganization;
    expect(updated.businessSector).toBe('food');
    expect((await restCreate(key)).status).toBe(200);
  });

  it('refuses a blank name with BAD_USER_INPUT and creates nothing', async () => {
    const before = await gateway.ctx.db.organization.count();
    const error = await refused(CreateOrganizationDocument, { input: { name: '   ' } });
    expect(error.message).toBe('Invalid input: name must be 1 to 200 characters');
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
    expect(await gateway.ctx.db.organization.count()).toBe(before);
  });
});

describe('updateOrganization', () => {
  it('changes status, verified, limits and sector; omitted fields stay; explicit null clears a limit', async () => {
    const { id } = await createOrganization({ name: 'Limites' });
    const update = (input: UpdateOrganizationInput) => admin(UpdateOrganizationDocument, { id, input }).then((data) => data.updateOrganization);

    const set = await update({
      status: 'inactive',
      verified: true,
      minTransactionAmount: 500,
      maxTransactionAmount: 50_000,
      maxPayoutAmount: 20_000,
      businessSector: 'retail',
    });
    expect(set).toMatchObject({
      status: 'inactive',
      verified: true,
      minTransactionAmount: 500,
      maxTransactionAmount: 50_000,
      maxPayoutAmount: 20_000,
      businessSector: 'retail',
    });
    expect(await readOrganization(id)).toEqual(set);

    // Omitted: unchanged.
    const partial = await update({ verified: false });
    expect(partial).toMatchObject({
      status: 'inactive',
      verified: false,
      minTransactionAmount: 500,
      maxTransactionAmount: 50_000,
      maxPayoutAmount: 20_000,
      businessSector: 'retail',
    });

    // Explicit null: cleared (only those).
    const cleared = await update({ minTransactionAmount: null, maxTransactionAmount: null });
    expect(cleared).toMatchObject({
      minTransactionAmount: null,
      maxTransactionAmount: null,
      maxPayoutAmount: 20_000,
      status: 'inactive',
      businessSector: 'retail',
    });
    const clearedPayout = await update({ maxPayoutAmount: null });
    expect(clearedPayout).toMatchObject({ minTransactionAmount: null, maxTransactionAmount: null, maxPayoutAmount: null });

    // Sector '' unsets it; status back to active.
    const last = await update({ businessSector: '', status: 'active' });
    expect(last).toMatchObject({ businessSector: null, status: 'active' });
    expect(await readOrganization(id)).toEqual(last);
  });

  it('takes effect on REST at once (status, limits)', async () => {
    const { id } = await createOrganization({ name: 'Effets' });
    const { key } = await createKey(id);
    const update = (input: UpdateOrganizationInput) => admin(UpdateOrganizationDocument, { id, input });
    expect((await restCreate(key)).status).toBe(200);

    await update({ status: 'blocked' });
    expect(await restCreate(key)).toMatchObject({ status: 403, body: { error: 'Organization is blocked. Please contact the operator to restore access.' } });
    await update({ status: 'inactive' });
    expect(await restCreate(key)).toMatchObject({ status: 401, body: { error: 'Organization is not active' } });
    await update({ status: 'active', minTransactionAmount: 5000 });
    expect(await restCreate(key)).toMatchObject({ status: 400, body: { error: 'Amount is outside the allowed transaction limits: the minimum is 5000 XOF' } });
    await update({ minTransactionAmount: null });
    expect((await restCreate(key)).status).toBe(200);
  });

  it('of an unknown id answers ORGANIZATION_NOT_FOUND', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const error = await refused(UpdateOrganizationDocument, { id, input: { verified: true } });
      expect(error.message).toBe('Organization not found');
      expect(error.extensions).toEqual({ code: 'ORGANIZATION_NOT_FOUND', status: 404 });
      expect(error.path).toEqual(['updateOrganization']);
    }
    const read = await refused(OrganizationDocument, { id: randomUUID() });
    expect(read.extensions.code).toBe('ORGANIZATION_NOT_FOUND');
  });

  it('refuses invalid input with BAD_USER_INPUT and changes nothing', async () => {
    const { id } = await createOrganization({ name: 'Invalide' });
    const before = (await admin(UpdateOrganizationDocument, { id, input: { maxTransactionAmount: 1000 } })).updateOrganization;

    const cases: { input: UpdateOrganizationInput; message: string }[] = [
      // Both given, min > max.
      { input: { minTransactionAmount: 5000, maxTransactionAmount: 1000, verified: true }, message: 'Invalid input: min amount is greater than max amount' },
      // Only min given, above the stored max.
      { input: { minTransactionAmount: 2000, status: 'blocked' }, message: 'Invalid input: min amount is greater than max amount' },
      { input: { minTransactionAmount: 0 }, message: 'Invalid input: min amount must be an integer from 1 to 1000000000000' },
      { input: { maxPayoutAmount: -1, verified: true }, message: 'Invalid input: max payout must be an integer from 1 to 1000000000000' },
      { input: { businessSector: 'x'.repeat(201), verified: true }, message: 'Invalid input: business sector is too long' },
    ];
    for (const { input, message } of cases) {
      const error = await refused(UpdateOrganizationDocument, { id, input });
      expect(error.message, JSON.stringify(input)).toBe(message);
      expect(error.extensions, JSON.stringify(input)).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
      expect(await readOrganization(id), JSON.stringify(input)).toEqual(before);
    }
  });
});

describe('API keys', () => {
  it('createApiKey returns a key that works on REST at once', async () => {
    const { id } = await createOrganization({ name: 'Clés' });
    const issued = await createKey(id, 'readAndWrite');
    expect(issued.key).toMatch(/^gw_sk_[A-Za-z0-9_-]{43}$/);
    expect(issued.apiKey).toMatchObject({ organizationId: id, scope: 'readAndWrite', revoked: false, revokedAt: null, prefix: issued.key.slice(0, 14) });

    const created = await restCreate(issued.key);
    expect(created.status).toBe(200);
    const read = await gateway.rest('GET', `/api/v2/transactions/${created.body.order_id}`, { key: issued.key });
    expect(read.status).toBe(200);
  });

  it('a key has only its scope', async () => {
    const { id } = await createOrganization({ name: 'Lecture' });
    const { key } = await createKey(id, 'read');
    expect((await gateway.rest('GET', '/api/v2/transactions', { key })).status).toBe(200);
    expect(await restCreate(key)).toMatchObject({ status: 403, body: { error: "You don't have permission to perform this action" } });
  });

  it('createApiKey for an unknown organisation answers ORGANIZATION_NOT_FOUND', async () => {
    const error = await refused(CreateApiKeyDocument, { organizationId: randomUUID(), scope: 'checkout' });
    expect(error.extensions).toEqual({ code: 'ORGANIZATION_NOT_FOUND', status: 404 });
  });

  it('revokeApiKey makes the key 401 on REST (and GraphQL) at once; revoking again is harmless', async () => {
    const { id } = await createOrganization({ name: 'Révocation' });
    const issued = await createKey(id);
    const other = await createKey(id);
    expect((await restCreate(issued.key)).status).toBe(200);

    const revoked = (await admin(RevokeApiKeyDocument, { id: issued.apiKey.id })).revokeApiKey;
    expect(revoked).toMatchObject({ id: issued.apiKey.id, revoked: true });
    expect(revoked.revokedAt).toEqual(expect.any(String));

    expect(await restCreate(issued.key)).toMatchObject({ status: 401, body: { error: 'Invalid API key' } });
    expect(await gateway.rest('GET', '/api/v2/transactions', { key: issued.key })).toMatchObject({ status: 401, body: { error: 'Invalid API key' } });
    const viaGraphql = await graphqlTyped(gateway, TransactionCountDocument, {}, issued.key);
    expect(viaGraphql.status).toBe(401);
    expect(viaGraphql.body.errors[0]).toMatchObject({ message: 'Invalid API key', extensions: { code: 'UNAUTHENTICATED', status: 401 } });

    // Only that key.
    expect((await restCreate(other.key)).status).toBe(200);

    const again = (await admin(RevokeApiKeyDocument, { id: issued.apiKey.id })).revokeApiKey;
    expect(again).toEqual(revoked);
  });

  it('revokeApiKey of an unknown key answers API_KEY_NOT_FOUND', async () => {
    const error = await refused(RevokeApiKeyDocument, { id: randomUUID() });
    expect(error.message).toBe('API key not found');
    expect(error.extensions).toEqual({ code: 'API_KEY_NOT_FOUND', status: 404 });
  });
});

describe('kill switches', () => {
  it('setSwitch and switches round-trip, and the transactions switch stops REST creation', async () => {
    const { id } = await createOrganization({ name: 'Interrupteurs' });
    const { key } = await createKey(id);
    try {
      expect((await admin(SwitchesDocument, {})).switches).toEqual([
        { name: 'transactions', on: true },
        { name: 'payouts', on: true },
        { name: 'wave', on: true },
        { name: 'orange_money', on: true },
      ]);

      expect((await admin(SetSwitchDocument, { name: 'wave', on: false })).setSwitch).toEqual({ name: 'wave', on: false });
      expect((await admin(SetSwitchDocument, { name: 'transactions', on: false })).setSwitch).toEqual({ name: 'transactions', on: false });
      expect((await admin(SwitchesDocument, {})).switches).toEqual([
        { name: 'transactions', on: false },
        { name: 'payouts', on: true },
        { name: 'wave', on: false },
        { name: 'orange_money', on: true },
      ]);
      expect(await restCreate(key)).toMatchObject({ status: 503, body: { error: 'Transaction creation is temporarily disabled' } });

      expect((await admin(SetSwitchDocument, { name: 'transactions', on: true })).setSwitch).toEqual({ name: 'transactions', on: true });
      expect((await restCreate(key)).status).toBe(200);
    } finally {
      await admin(SetSwitchDocument, { name: 'transactions', on: true });
      await admin(SetSwitchDocument, { name: 'wave', on: true });
    }
    expect((await admin(SwitchesDocument, {})).switches.every((s: { on: boolean }) => s.on)).toBe(true);
  });
});

describe('who may call the operator API', () => {
  it('a merchant key gets FORBIDDEN and changes nothing', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    const error = await refused(UpdateOrganizationDocument, { id: organization.id, input: { verified: true } }, key);
    expect(error.message).toBe("You don't have permission to perform this action");
    expect(error.extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
    expect((await readOrganization(organization.id)).verified).toBe(false);

    const switchError = await refused(SetSwitchDocument, { name: 'transactions', on: false }, key);
    expect(switchError.extensions.code).toBe('FORBIDDEN');
    expect((await admin(SwitchesDocument, {})).switches[0]).toEqual({ name: 'transactions', on: true });
  });

  it('an operator reads every organisation’s transactions, or one organisation’s, and creates one only for an organisation it names', async () => {
    const [a, b] = [await gateway.merchant(), await gateway.merchant()];
    const orderA = (await gateway.rest('POST', '/api/v2/transactions', { key: a.key, body: transactionBody() })).body.order_id;
    const orderB = (await gateway.rest('POST', '/api/v2/transactions', { key: b.key, body: transactionBody() })).body.order_id;

    // The README's example query, with the operator token.
    const all = await admin(TransactionsOfEveryOrganizationDocument, {});
    const seen = new Map(all.transactions.transactions.map((t: { orderId: string; organizationId: string }) => [t.orderId, t.organizationId]));
    expect(seen.get(orderA)).toBe(a.organization.id);
    expect(seen.get(orderB)).toBe(b.organization.id);

    const onlyA = await admin(TransactionsOfOrganizationDocument, { organizationId: a.organization.id });
    expect(onlyA.transactions).toEqual({ transactions: [{ orderId: orderA }], pagination: { totalCount: 1 } });
    expect((await admin(TransactionOrganizationDocument, { orderId: orderB })).transaction.organizationId).toBe(b.organization.id);

    // An operator has no organisation of its own to act as (admins may name one: operator-create-transaction.test.ts).
    const error = await refused(CreateTransactionDocument, { input: { methodOfPayment: ['wave'], products: [{ name: 'x', price: 100, quantity: 1 }] } });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
    expect(error.message).toMatch(/organizationId/);
  });

  it('a merchant cannot read another organisation by naming it', async () => {
    const [a, b] = [await gateway.merchant(), await gateway.merchant()];
    const response = await graphqlTyped(gateway, TransactionsOfOrganizationDocument, { organizationId: b.organization.id }, a.key);
    expect(response.body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
  });

  it('no token, or a wrong one, is 401 UNAUTHENTICATED even for { __typename }', async () => {
    for (const token of [undefined, 'gw_op_wrong']) {
      const response = await graphqlTyped(gateway, TypenameDocument, {}, token);
      expect(response.status).toBe(401);
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors[0]).toMatchObject({ message: 'Invalid API key', extensions: { code: 'UNAUTHENTICATED', status: 401 } });
    }
  });
});
