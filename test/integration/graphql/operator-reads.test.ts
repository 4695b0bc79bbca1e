/**
 * Operator reads over GraphQL: `organizations` (paginated, filtered), `organization` and
 * `apiKeys`. Every operator role may read, only admin may change anything, merchants may do
 * neither; a key list never carries a key or its digest.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { useGateway } from '../../support/gateway.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { graphqlData, newestFirstIds } from '../../support/assertions.js';
import {
  type ApiScope,
  ApiKeysDocument,
  CreateApiKeyDocument,
  CreateOrganizationDocument,
  OrganizationDocument,
  type OrganizationStatus,
  OrganizationsPageDocument,
  type OrganizationsPageQueryVariables,
  RevokeApiKeyDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlRefusalTyped, graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();
/** An operator token with the read-only `analyst` role, issued straight into the database. */
let analystToken: string;

beforeAll(async () => {
  analystToken = `gw_op_${randomBytes(32).toString('base64url')}`;
  await gateway.ctx.db.operatorToken.create({ data: { role: 'analyst', prefix: analystToken.slice(0, 14), tokenDigest: sha256Hex(analystToken) } });
});

// Raw query text stays only for the introspection of ApiKey.
const read = <Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables, token?: string) =>
  graphqlDataTyped(gateway, document, variables, token);

const refused = <Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables, token?: string) =>
  graphqlRefusalTyped(gateway, document, variables, token);

const list = async (variables: OrganizationsPageQueryVariables, token?: string) => (await read(OrganizationsPageDocument, variables, token)).organizations;

/** A word no other test's organisation carries, to search this test's organisations alone. */
const uniqueTag = () => `T${randomBytes(4).toString('hex')}`;

/** Organisations created one after another (so newest first is the reverse of `names`). */
async function createNamed(names: string[]) {
  const created = [];
  for (const name of names) created.push(await gateway.createOrganization({ name }));
  return created;
}

/** The organisations' ids in the list's order. */
const newestFirst = (organizations: { id: string; createdAt: Date }[]): string[] =>
  newestFirstIds(
    organizations,
    (o) => o.createdAt,
    (o) => o.id,
  );

describe('organizations', () => {
  it('lists organisations newest first with their accounts, as organization(id) shows each', async () => {
    const tag = uniqueTag();
    const [first, second, third] = await createNamed([`${tag} Alpha`, `${tag} Beta`, `${tag} Gamma`]);
    const page = await list({ search: tag });

    expect(page.pagination).toEqual({ page: 1, limit: 20, totalCount: 3, totalPages: 1 });
    expect(page.organizations.map((o: { id: string }) => o.id)).toEqual(newestFirst([first!, second!, third!]));
    const single = (await read(OrganizationDocument, { id: second!.id })).organization;
    expect(page.organizations.find((o: { id: string }) => o.id === second!.id)).toEqual(single);
    expect(single.accounts.map((account: { name: string }) => account.name).sort()).toEqual(['escrow', 'main']);
  });

  it('pages through every organisation exactly once; limit above 100 is capped', async () => {
    const tag = uniqueTag();
    const created = await createNamed([1, 2, 3, 4, 5].map((n) => `${tag} ${n}`));
    const pages = await Promise.all([1, 2, 3, 4].map((page) => list({ search: tag, page, limit: 2 })));

    expect(pages.map((page) => page.pagination)).toEqual([1, 2, 3, 4].map((page) => ({ page, limit: 2, totalCount: 5, totalPages: 3 })));
    expect(pages.map((page) => page.organizations.length)).toEqual([2, 2, 1, 0]);
    const ids = pages.flatMap((page) => page.organizations.map((o: { id: string }) => o.id));
    expect(ids).toEqual(newestFirst(created));

    expect((await list({ search: tag, limit: 500 })).pagination).toEqual({ page: 1, limit: 100, totalCount: 5, totalPages: 1 });
  });

  it('refuses a page or limit below 1 with BAD_USER_INPUT', async () => {
    for (const [variables, message] of [
      [{ page: 0 }, 'Invalid query parameter: page must be an integer from 1 to 100000'],
      [{ limit: 0 }, 'Invalid query parameter: limit must be a positive integer'],
      [{ limit: -5 }, 'Invalid query parameter: limit must be a positive integer'],
    ] as const) {
      const error = await refused(OrganizationsPageDocument, variables);
      expect(error.message, JSON.stringify(variables)).toBe(message);
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
    }
  });

  it('filters by status', async () => {
    const tag = uniqueTag();
    const [active, blocked, inactive] = await Promise.all([
      gateway.createOrganization({ name: `${tag} active` }),
      gateway.createOrganization({ name: `${tag} blocked`, update: { status: 'blocked' } }),
      gateway.createOrganization({ name: `${tag} inactive`, update: { status: 'inactive' } }),
    ]);
    const ids = async (status: OrganizationStatus) => (await list({ search: tag, status })).organizations.map((o: { id: string }) => o.id);
    expect(await ids('active')).toEqual([active.id]);
    expect(await ids('blocked')).toEqual([blocked.id]);
    expect(await ids('inactive')).toEqual([inactive.id]);

    // Without a search, still only that status.
    const allBlocked = await list({ status: 'blocked', limit: 100 });
    expect(allBlocked.organizations.length).toBeGreaterThan(0);
    expect(allBlocked.organizations.every((o: { status: string }) => o.status === 'blocked')).toBe(true);

    // Not a status at all: refused by GraphQL itself, before any operation runs.
    // Deliberately not a status: the typed variables cannot say it.
    const error = await refused(OrganizationsPageDocument, { status: 'closed' as OrganizationStatus });
    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/Value "closed" does not exist in "OrganizationStatus" enum/);
  });

  it('search matches part of the name, case-insensitively; % and _ are plain characters', async () => {
    const tag = uniqueTag();
    const [boutique, percent, underscore] = await createNamed([`${tag} Boutique Awa`, `${tag} Remise 50%`, `${tag} dakar_shop`]);
    const ids = async (search: string) => (await list({ search })).organizations.map((o: { id: string }) => o.id).sort();

    expect(await ids(`${tag.toLowerCase()} BOUTIQUE`)).toEqual([boutique!.id]);
    expect(await ids(`${tag} `)).toEqual([boutique!.id, percent!.id, underscore!.id].sort());
    expect(await ids(`${tag} Remise 50%`)).toEqual([percent!.id]);
    // As wildcards, '%' and '_' would match every organisation of the tag.
    expect(await ids(`${tag}%`)).toEqual([]);
    expect(await ids(`${tag} dakar_`)).toEqual([underscore!.id]);
    expect(await ids(`${tag} dakar_s`)).toEqual([underscore!.id]);
    expect(await ids(`${tag} _akar`)).toEqual([]);
    expect(await ids(`${tag} nothing like it`)).toEqual([]);
  });

  it('a blank search is no filter; a search longer than 100 characters is refused', async () => {
    const all = (await list({})).pagination.totalCount;
    expect(all).toBeGreaterThan(0);
    expect((await list({ search: '   ' })).pagination.totalCount).toBe(all);

    const error = await refused(OrganizationsPageDocument, { search: 'x'.repeat(101) });
    expect(error.message).toBe('Invalid query parameter: search is longer than 100 characters');
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
  });
});

describe('organization', () => {
  it('answers ORGANIZATION_NOT_FOUND for an unknown or malformed id', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const error = await refused(OrganizationDocument, { id });
      expect(error.message).toBe('Organization not found');
      expect(error.extensions).toEqual({ code: 'ORGANIZATION_NOT_FOUND', status: 404 });
    }
  });
});

describe('apiKeys', () => {
  it('lists the keys newest first, revoked ones included, metadata only (never the key or its digest)', async () => {
    const organization = await gateway.createOrganization();
    const issued: { key: string; apiKey: { id: string; createdAt: string } }[] = [];
    for (const scope of ['checkout', 'read', 'payout'] as ApiScope[])
      issued.push((await read(CreateApiKeyDocument, { organizationId: organization.id, scope })).createApiKey);
    await read(RevokeApiKeyDocument, { id: issued[1]!.apiKey.id });

    const response = await graphqlTyped(gateway, ApiKeysDocument, { organizationId: organization.id }, gateway.adminToken);
    expect(response.status).toBe(200);
    const keys = response.body.data!.apiKeys;
    // Newest first as the store orders them: keys made in one millisecond list by id.
    const expected = newestFirstIds(
      issued.map((entry) => entry.apiKey),
      (key) => key.createdAt,
      (key) => key.id,
    );
    expect(keys.map((key: { id: string }) => key.id)).toEqual(expected);
    const listed = (id: string) => keys.find((key: { id: string }) => key.id === id)!;
    expect(issued.map((entry) => [listed(entry.apiKey.id).scope, listed(entry.apiKey.id).revoked])).toEqual([
      ['checkout', false],
      ['read', true],
      ['payout', false],
    ]);
    expect(listed(issued[1]!.apiKey.id).revokedAt).toEqual(expect.any(String));
    expect(listed(issued[2]!.apiKey.id)).toMatchObject({ organizationId: organization.id, revokedAt: null, prefix: issued[2]!.key.slice(0, 14) });

    const text = JSON.stringify(response.body);
    for (const { key } of issued) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(sha256Hex(key));
    }
  });

  it('has no field that could carry a digest or a secret', async () => {
    const fields = (await graphqlData(gateway, `{ __type(name: "ApiKey") { fields { name } } }`)).__type.fields.map((field: { name: string }) => field.name);
    expect(fields.sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'organizationId', 'prefix', 'revoked', 'revokedAt', 'scope']);
  });

  it('answers at most the 100 most recent keys', async () => {
    const organization = await gateway.createOrganization();
    const start = Date.parse('2024-01-01T00:00:00Z');
    await gateway.ctx.db.apiKey.createMany({
      data: Array.from({ length: 101 }, (_, i) => ({
        organizationId: organization.id,
        scope: 'read' as const,
        prefix: `gw_sk_${String(i).padStart(8, '0')}`,
        keyDigest: sha256Hex(randomUUID()),
        createdAt: new Date(start + i * 1000),
      })),
    });
    const keys = (await read(ApiKeysDocument, { organizationId: organization.id })).apiKeys;
    expect(keys).toHaveLength(100);
    expect(keys[0]!.prefix).toBe('gw_sk_00000100');
    expect(keys[99]!.prefix).toBe('gw_sk_00000001');
  });

  it('an organisation without keys has an empty list; an unknown one is ORGANIZATION_NOT_FOUND', async () => {
    const organization = await gateway.createOrganization();
    expect((await read(ApiKeysDocument, { organizationId: organization.id })).apiKeys).toEqual([]);
    for (const organizationId of [randomUUID(), 'nope']) {
      const error = await refused(ApiKeysDocument, { organizationId });
      expect(error.extensions).toEqual({ code: 'ORGANIZATION_NOT_FOUND', status: 404 });
    }
  });
});

describe('who may read', () => {
  it('an analyst operator token reads organisations and keys', async () => {
    const tag = uniqueTag();
    const { organization, key } = await gateway.merchant({ name: `${tag} analysed` });
    const page = await list({ search: tag }, analystToken);
    expect(page.organizations.map((o: { id: string }) => o.id)).toEqual([organization.id]);
    expect((await read(OrganizationDocument, { id: organization.id }, analystToken)).organization.id).toBe(organization.id);
    const keys = (await read(ApiKeysDocument, { organizationId: organization.id }, analystToken)).apiKeys;
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(key);
  });

  it('an analyst operator token cannot change anything (FORBIDDEN)', async () => {
    const { organization } = await gateway.merchant();
    const [keyId] = (await gateway.ctx.db.apiKey.findMany({ where: { organizationId: organization.id }, select: { id: true } })).map((key) => key.id);
    const before = await gateway.ctx.db.organization.count();
    for (const refusal of [
      () => refused(CreateOrganizationDocument, { input: { name: 'Not allowed' } }, analystToken),
      () => refused(CreateApiKeyDocument, { organizationId: organization.id, scope: 'read' }, analystToken),
      () => refused(RevokeApiKeyDocument, { id: keyId! }, analystToken),
    ]) {
      const error = await refusal();
      expect(error.message).toBe('This operator role cannot perform this action');
      expect(error.extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
    }
    expect(await gateway.ctx.db.organization.count()).toBe(before);
    expect(await gateway.ctx.db.apiKey.findMany({ where: { organizationId: organization.id } })).toMatchObject([{ id: keyId, revokedAt: null }]);
  });

  it('a merchant API key gets FORBIDDEN on every operator read', async () => {
    const { organization, key } = await gateway.merchant({ scope: 'readAndWrite' });
    for (const refusal of [
      () => refused(OrganizationsPageDocument, {}, key),
      () => refused(OrganizationDocument, { id: organization.id }, key),
      () => refused(ApiKeysDocument, { organizationId: organization.id }, key),
    ]) {
      const error = await refusal();
      expect(error.message).toBe("You don't have permission to perform this action");
      expect(error.extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
    }
  });
});
