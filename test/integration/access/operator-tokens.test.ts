/**
 * Operator tokens through GraphQL (docs/cli.md's contract: `operator-token create --role
 * admin|analyst|support`, `list`, `revoke`): an admin issues a token shown once and stored only as
 * its SHA-256 digest; listing shows metadata, never a token or digest; a revoked token is refused
 * (401) at its very next request; who may issue, list and revoke is the access policy's rows, with
 * their error codes; bad roles and ids are clear 4xx answers that change nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { invalidationOfOperatorToken } from '../../../src/domain/access/callerCache.js';
import { MAX_ACTIVE_OPERATOR_TOKENS } from '../../../src/domain/access/createOperatorToken.js';
import { expectGraphqlError, graphqlData } from '../../support/assertions.js';
import { useGateway } from '../../support/gateway.js';
import {
  CreateOrganizationDocument,
  IssueOperatorTokenDocument,
  type IssueOperatorTokenMutationVariables,
  ListOperatorTokensDocument,
  type OperatorRole,
  OrganizationCountDocument,
  RevokeOperatorTokenDocument,
  TypenameDocument,
} from '../../support/graphql/generated.js';
import { graphqlDataTyped, graphqlRefusalTyped, graphqlTyped } from '../../support/graphql/typed.js';

const gateway = useGateway();

// Raw query strings stay only for a role literal the schema must refuse and the introspection of OperatorToken.

type Issued = { token: string; id: string };

async function issue(role: OperatorRole, as = gateway.adminToken): Promise<Issued> {
  const { createOperatorToken } = await graphqlDataTyped(gateway, IssueOperatorTokenDocument, { role }, as);
  return { token: createOperatorToken.token, id: createOperatorToken.operatorToken.id };
}

const tokenCount = () => gateway.ctx.db.operatorToken.count();

/** Every row of every table, as JSON text, that contains `needle`. */
async function rowsContaining(needle: string): Promise<string[]> {
  const tables = await gateway.ctx.db.$queryRawUnsafe<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  expect(tables.map((table) => table.table_name)).toContain('OperatorToken');
  const hits: string[] = [];
  for (const { table_name } of tables) {
    const rows = await gateway.ctx.db.$queryRawUnsafe<{ row: string }[]>(
      `SELECT row_to_json(t)::text AS row FROM "${table_name.replaceAll('"', '""')}" t WHERE strpos(row_to_json(t)::text, $1) > 0`,
      needle,
    );
    hits.push(...rows.map((row) => `${table_name}: ${row.row}`));
  }
  return hits;
}

let merchantKey: string;
beforeAll(async () => {
  merchantKey = (await gateway.merchant({ scope: 'management' })).key;
});

describe('createOperatorToken', () => {
  it('returns a gw_op_ token of 256 random bits once, with its role; the database holds only its digest', async () => {
    const { createOperatorToken } = await graphqlDataTyped(gateway, IssueOperatorTokenDocument, { role: 'analyst' });
    const { token, operatorToken } = createOperatorToken;
    expect(token).toMatch(/^gw_op_[A-Za-z0-9_-]{43}$/);
    expect(operatorToken).toMatchObject({ role: 'analyst', revoked: false, revokedAt: null, prefix: token.slice(0, 14) });

    const row = await gateway.ctx.db.operatorToken.findUniqueOrThrow({ where: { id: operatorToken.id } });
    expect(row.tokenDigest).toBe(sha256Hex(token));
    // Not the token, nor its random part, anywhere in the database (the display prefix is 8 of its 43 characters).
    expect(await rowsContaining(token)).toEqual([]);
    expect(await rowsContaining(token.slice(14))).toEqual([]);
  });

  it('issues distinct tokens each time', async () => {
    const issued = await Promise.all([issue('admin'), issue('analyst'), issue('support')]);
    expect(new Set(issued.map(({ token }) => token)).size).toBe(3);
    expect(new Set(issued.map(({ id }) => id)).size).toBe(3);
  });

  it('gives the token its role: an issued admin issues tokens; an analyst reads but may not mutate', async () => {
    const admin = await issue('admin');
    const analyst = await issue('analyst', admin.token);
    expect((await graphqlDataTyped(gateway, OrganizationCountDocument, {}, analyst.token)).organizations.pagination.totalCount).toBeGreaterThan(0);
    const refusal = await graphqlRefusalTyped(gateway, CreateOrganizationDocument, { input: { name: 'Not allowed' } }, analyst.token);
    expect(refusal).toMatchObject({ message: 'This operator role cannot perform this action', extensions: { code: 'FORBIDDEN', status: 403 } });
  });
});

describe('operatorTokens (list)', () => {
  it('shows each token’s metadata and never a token or its digest; the type has no field that could', async () => {
    const issued = await issue('support');
    const response = await graphqlTyped(gateway, ListOperatorTokensDocument, {}, gateway.adminToken);
    expect(response.status).toBe(200);
    const listed = response.body.data!.operatorTokens.find((token: { id: string }) => token.id === issued.id);
    expect(listed).toEqual({
      id: issued.id,
      role: 'support',
      prefix: issued.token.slice(0, 14),
      revoked: false,
      revokedAt: null,
      createdAt: expect.any(String),
    });
    const text = JSON.stringify(response.body);
    expect(text).not.toContain(issued.token.slice(14));
    expect(text).not.toContain(sha256Hex(issued.token));

    const { __type } = await graphqlData(gateway, '{ __type(name: "OperatorToken") { fields { name } } }');
    expect(__type.fields.map((field: { name: string }) => field.name).sort()).toEqual(['createdAt', 'id', 'prefix', 'revoked', 'revokedAt', 'role']);
  });

  it('is readable by every operator role (analyst, support)', async () => {
    const [analyst, support] = await Promise.all([issue('analyst'), issue('support')]);
    for (const { token, id } of [analyst, support]) {
      const { operatorTokens } = await graphqlDataTyped(gateway, ListOperatorTokensDocument, {}, token);
      expect(operatorTokens.map((listed: { id: string }) => listed.id)).toContain(id);
    }
  });

  it('does not list the bootstrap GATEWAY_ADMIN_TOKEN (it is not a row, so no id can revoke it)', async () => {
    const { operatorTokens } = await graphqlDataTyped(gateway, ListOperatorTokensDocument, {});
    const rows = await gateway.ctx.db.operatorToken.findMany();
    expect(rows.some((row) => row.tokenDigest === sha256Hex(gateway.adminToken))).toBe(false);
    expect(operatorTokens.length).toBe(rows.length);
  });
});

describe('revokeOperatorToken', () => {
  it('refuses the token with 401 at its very next request; the answer and the list say revoked', async () => {
    const issued = await issue('admin');
    expect((await graphqlTyped(gateway, TypenameDocument, {}, issued.token)).status).toBe(200);

    const { revokeOperatorToken } = await graphqlDataTyped(gateway, RevokeOperatorTokenDocument, { id: issued.id });
    expect(revokeOperatorToken).toEqual({ id: issued.id, role: 'admin', revoked: true, revokedAt: expect.any(String), propagationConfirmed: true });

    const refused = await graphqlTyped(gateway, TypenameDocument, {}, issued.token);
    expect(refused.status).toBe(401);
    expect(refused.body.data ?? null).toBeNull();
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ message: 'Invalid API key', extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) }),
    ]);
    // Not even to issue a token with it.
    expect((await graphqlTyped(gateway, IssueOperatorTokenDocument, { role: 'admin' }, issued.token)).status).toBe(401);

    const { operatorTokens } = await graphqlDataTyped(gateway, ListOperatorTokensDocument, {});
    expect(operatorTokens.find((token: { id: string }) => token.id === issued.id)).toMatchObject({ revoked: true, revokedAt: revokeOperatorToken.revokedAt });
  });

  it('tells every instance on the invalidation bus (their cached token is dropped; what it holds open, a live stream, ends on it)', async () => {
    const heard: string[] = [];
    gateway.ctx.coordination.invalidations.subscribe((message) => heard.push(message));
    const issued = await issue('analyst');
    await graphqlDataTyped(gateway, RevokeOperatorTokenDocument, { id: issued.id });
    expect(heard).toContain(invalidationOfOperatorToken(issued.id));
  });

  it('again answers the first revocation, unchanged', async () => {
    const issued = await issue('analyst');
    const first = (await graphqlDataTyped(gateway, RevokeOperatorTokenDocument, { id: issued.id })).revokeOperatorToken;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = (await graphqlDataTyped(gateway, RevokeOperatorTokenDocument, { id: issued.id })).revokeOperatorToken;
    expect(again).toEqual(first);
  });

  it('lets an issued admin revoke its own token; the bootstrap token keeps working', async () => {
    const admin = await issue('admin');
    expect((await graphqlDataTyped(gateway, RevokeOperatorTokenDocument, { id: admin.id }, admin.token)).revokeOperatorToken.revoked).toBe(true);
    expect((await graphqlTyped(gateway, TypenameDocument, {}, admin.token)).status).toBe(401);
    expect((await graphqlDataTyped(gateway, OrganizationCountDocument, {})).organizations.pagination.totalCount).toBeGreaterThan(0);
  });

  it('answers 404 OPERATOR_TOKEN_NOT_FOUND for an unknown or malformed id, changing nothing', async () => {
    const before = await gateway.ctx.db.operatorToken.findMany({ orderBy: { id: 'asc' } });
    for (const id of [randomUUID(), 'not-an-id', "1' OR '1'='1", '']) {
      const response = await graphqlTyped(gateway, RevokeOperatorTokenDocument, { id }, gateway.adminToken);
      expect(response.status).toBe(200);
      expect(response.body.data).toBeNull();
      expectGraphqlError(response, 'operator_token_not_found');
    }
    expect(await gateway.ctx.db.operatorToken.findMany({ orderBy: { id: 'asc' } })).toEqual(before);
  });
});

describe('who may issue, list and revoke (the policy’s rows)', () => {
  it('refuses analyst and support tokens issuing or revoking: FORBIDDEN (operator_forbidden), nothing changes', async () => {
    const [analyst, support, target] = await Promise.all([issue('analyst'), issue('support'), issue('analyst')]);
    const before = await tokenCount();
    for (const role of [analyst, support]) {
      const created = await graphqlTyped(gateway, IssueOperatorTokenDocument, { role: 'admin' }, role.token);
      expect(created.body.data).toBeNull();
      expectGraphqlError(created, 'operator_forbidden');
      const revoked = await graphqlTyped(gateway, RevokeOperatorTokenDocument, { id: target.id }, role.token);
      expect(revoked.body.data).toBeNull();
      expectGraphqlError(revoked, 'operator_forbidden');
    }
    expect(await tokenCount()).toBe(before);
    expect((await graphqlTyped(gateway, TypenameDocument, {}, target.token)).status).toBe(200);
  });

  it('refuses a merchant API key issuing, listing or revoking: FORBIDDEN (permission_denied)', async () => {
    const target = await issue('support');
    const before = await tokenCount();
    for (const send of [
      () => graphqlTyped(gateway, IssueOperatorTokenDocument, { role: 'admin' }, merchantKey),
      () => graphqlTyped(gateway, ListOperatorTokensDocument, {}, merchantKey),
      () => graphqlTyped(gateway, RevokeOperatorTokenDocument, { id: target.id }, merchantKey),
    ]) {
      const response = await send();
      expect(response.body.data).toBeNull();
      expectGraphqlError(response, 'permission_denied');
    }
    expect(await tokenCount()).toBe(before);
    expect((await graphqlTyped(gateway, TypenameDocument, {}, target.token)).status).toBe(200);
  });

  it('refuses an operator token on REST (it is not an API key): 401', async () => {
    const admin = await issue('admin');
    expect((await gateway.rest('GET', '/api/v2/transactions', { key: admin.token })).status).toBe(401);
  });
});

describe('bad input', () => {
  it('refuses an unknown or missing role before running anything (a client error), issuing nothing', async () => {
    const before = await tokenCount();
    for (const variables of [{ role: 'superuser' }, { role: 'ADMIN' }, { role: '' }, {}]) {
      // Deliberately not a role: the typed variables cannot say it.
      const response = await graphqlTyped(gateway, IssueOperatorTokenDocument, variables as unknown as IssueOperatorTokenMutationVariables, gateway.adminToken);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.data ?? null).toBeNull();
      expect(response.body.errors?.[0]?.message).toMatch(/role/);
    }
    // A literal that is not a role fails validation: Yoga answers a plain JSON client 200 with the
    // error (400 only to clients accepting application/graphql-response+json), and runs nothing.
    const inline = await gateway.graphql('mutation { createOperatorToken(role: root) { token } }', {}, gateway.adminToken);
    expect(inline.status).toBeLessThan(500);
    expect(inline.body.data ?? null).toBeNull();
    expect(inline.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await tokenCount()).toBe(before);
  });
});

describe(`at most ${MAX_ACTIVE_OPERATOR_TOKENS} tokens in use`, () => {
  const seeded: string[] = [];
  afterAll(async () => {
    await gateway.ctx.db.operatorToken.updateMany({ where: { id: { in: seeded } }, data: { revokedAt: new Date() } });
  });

  it('issues up to the limit under concurrent requests, then answers 400 TOO_MANY_OPERATOR_TOKENS until one is revoked', async () => {
    const active = await gateway.ctx.db.operatorToken.count({ where: { revokedAt: null } });
    // Two below the limit, with rows of the same shape as issued ones (the digest of nothing anyone holds).
    const rows = Array.from({ length: MAX_ACTIVE_OPERATOR_TOKENS - 2 - active }, () => ({
      id: randomUUID(),
      role: 'analyst' as const,
      prefix: 'gw_op_seeded',
      tokenDigest: sha256Hex(randomUUID()),
    }));
    await gateway.ctx.db.operatorToken.createMany({ data: rows });
    seeded.push(...rows.map((row) => row.id));

    const answers = await Promise.all(
      Array.from({ length: 5 }, () => graphqlTyped(gateway, IssueOperatorTokenDocument, { role: 'support' }, gateway.adminToken)),
    );
    const issued = answers.filter((answer) => answer.body.data?.createOperatorToken);
    expect(issued).toHaveLength(2);
    seeded.push(...issued.map((answer) => answer.body.data!.createOperatorToken.operatorToken.id));
    for (const refused of answers.filter((answer) => !answer.body.data?.createOperatorToken))
      expectGraphqlError(refused, 'too_many_operator_tokens', String(MAX_ACTIVE_OPERATOR_TOKENS));
    expect(await gateway.ctx.db.operatorToken.count({ where: { revokedAt: null } })).toBe(MAX_ACTIVE_OPERATOR_TOKENS);

    // Every token in use is listed, first.
    const { operatorTokens } = await graphqlDataTyped(gateway, ListOperatorTokensDocument, {});
    expect(operatorTokens.slice(0, MAX_ACTIVE_OPERATOR_TOKENS).every((token: { revoked: boolean }) => !token.revoked)).toBe(true);

    await graphqlDataTyped(gateway, RevokeOperatorTokenDocument, { id: seeded[0]! });
    const after = await issue('analyst');
    seeded.push(after.id);
  });
});
