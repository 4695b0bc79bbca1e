/**
 * The operator CLI's reads end to end: `org list`, `org get` and `key list` run through the CLI's
 * `main` against a real gateway; one JSON object on stdout, exit 0, or {"error"} and
 * exit 1. The CLI runs in process (test/support/cli.ts); commands still run in parallel where possible.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/access/auth.js';
import { createApiKey, revokeApiKey } from '../../src/domain/operations.js';
import { useGateway } from '../support/gateway.js';
import { runCli } from '../support/cli.js';

const gateway = useGateway();

const cli = (args: string[], env: Record<string, string> = {}) => runCli(gateway, args, env);

const uniqueTag = () => `T${randomBytes(4).toString('hex')}`;

describe('gateway CLI reads', () => {
  it('org get prints the organisation with the fields org create prints', async () => {
    const created = await cli(['org', 'create', '--name', 'Boutique Lecture', '--verified']);
    expect(created.code).toBe(0);
    const got = await cli(['org', 'get', created.json.id]);
    expect(got).toMatchObject({ code: 0, json: created.json });
  });

  it('org list prints {organizations, pagination}: newest first, filtered, paginated', async () => {
    const tag = uniqueTag();
    const first = await gateway.createOrganization({ name: `${tag} Un` });
    const second = await gateway.createOrganization({ name: `${tag} Deux`, update: { status: 'blocked' } });
    const third = await gateway.createOrganization({ name: `${tag} Trois` });

    const [all, pageTwo, blocked, noMatch, newest] = await Promise.all([
      cli(['org', 'list', '--search', tag.toLowerCase()]),
      cli(['org', 'list', '--search', tag, '--page', '2', '--limit', '2']),
      cli(['org', 'list', '--search', tag, '--status', 'blocked']),
      cli(['org', 'list', '--search', `${tag} nobody`]),
      cli(['org', 'get', third.id]),
    ]);

    expect(all.code).toBe(0);
    expect(Object.keys(all.json).sort()).toEqual(['organizations', 'pagination']);
    expect(all.json.pagination).toEqual({ page: 1, limit: 20, totalCount: 3, totalPages: 1 });
    expect(all.json.organizations.map((o: { id: string }) => o.id)).toEqual([third.id, second.id, first.id]);
    // Each entry is what org get prints.
    expect(all.json.organizations[0]).toEqual(newest.json);

    expect(pageTwo.code).toBe(0);
    expect(pageTwo.json.pagination).toEqual({ page: 2, limit: 2, totalCount: 3, totalPages: 2 });
    expect(pageTwo.json.organizations.map((o: { id: string }) => o.id)).toEqual([first.id]);

    expect(blocked.json.organizations.map((o: { id: string; status: string }) => [o.id, o.status])).toEqual([[second.id, 'blocked']]);
    expect(noMatch).toMatchObject({ code: 0, json: { organizations: [], pagination: { totalCount: 0, totalPages: 0 } } });
  });

  it('key list prints {keys} with metadata only, newest first, never the key', async () => {
    const organization = await gateway.createOrganization();
    // Issued and revoked through the domain (the CLI's own key commands are tested in cli.test.ts).
    const issue = async (scope: string) => {
      const { apiKey, secret } = await createApiKey(gateway.ctx, gateway.operator, organization.id, scope);
      return { id: apiKey.id, key: secret };
    };
    const checkout = await issue('checkout');
    const read = await issue('read');
    await revokeApiKey(gateway.ctx, gateway.operator, checkout.id);

    const [listed, empty] = await Promise.all([
      cli(['key', 'list', '--org', organization.id]),
      gateway.createOrganization().then(({ id }) => cli(['key', 'list', '--org', id])),
    ]);
    expect(listed.code).toBe(0);
    expect(listed.json).toEqual({
      keys: [
        { id: read.id, scope: 'read', prefix: read.key.slice(0, 14), revoked: false, revokedAt: null, createdAt: expect.any(String) },
        { id: checkout.id, scope: 'checkout', prefix: checkout.key.slice(0, 14), revoked: true, revokedAt: expect.any(String), createdAt: expect.any(String) },
      ],
    });
    for (const { key } of [checkout, read]) {
      expect(listed.stdout).not.toContain(key);
      expect(listed.stdout).not.toContain(sha256Hex(key));
    }
    expect(empty).toMatchObject({ code: 0, json: { keys: [] } });
  });

  it('an analyst token reads through the CLI but cannot create', async () => {
    const token = `gw_op_${randomBytes(32).toString('base64url')}`;
    await gateway.ctx.db.operatorToken.create({ data: { role: 'analyst', prefix: token.slice(0, 14), tokenDigest: sha256Hex(token) } });
    const organization = await gateway.createOrganization();
    const [got, keys, created] = await Promise.all([
      cli(['org', 'get', organization.id], { GATEWAY_ADMIN_TOKEN: token }),
      cli(['key', 'list', '--org', organization.id], { GATEWAY_ADMIN_TOKEN: token }),
      cli(['org', 'create', '--name', 'Refusée'], { GATEWAY_ADMIN_TOKEN: token }),
    ]);
    expect(got).toMatchObject({ code: 0, json: { id: organization.id } });
    expect(keys).toMatchObject({ code: 0, json: { keys: [] } });
    expect(created).toMatchObject({ code: 1, json: { error: 'This operator role cannot perform this action' } });
  });

  it('the gateway\'s refusals print {"error"} and exit 1: unknown ids, a limit out of range, a merchant key', async () => {
    const [unknownOrg, malformedOrg, unknownKeysOrg, zeroLimit, merchant] = await Promise.all([
      cli(['org', 'get', randomUUID()]),
      cli(['org', 'get', 'not-an-id']),
      cli(['key', 'list', '--org', randomUUID()]),
      cli(['org', 'list', '--limit', '0']),
      gateway.merchant().then(({ key }) => cli(['org', 'list'], { GATEWAY_ADMIN_TOKEN: key })),
    ]);

    expect(unknownOrg).toMatchObject({ code: 1, json: { error: 'Organization not found' } });
    expect(malformedOrg).toMatchObject({ code: 1, json: { error: 'Organization not found' } });
    expect(unknownKeysOrg).toMatchObject({ code: 1, json: { error: 'Organization not found' } });
    // The range of a limit is the gateway's rule, reported in its words.
    expect(zeroLimit).toMatchObject({ code: 1, json: { error: 'Invalid query parameter: limit must be a positive integer' } });
    expect(merchant).toMatchObject({ code: 1, json: { error: "You don't have permission to perform this action" } });
  });

  it('usage mistakes print {"error"} with the usage and exit 1', async () => {
    const [badLimit, badPage, badStatus, noId, noOrg] = await Promise.all([
      cli(['org', 'list', '--limit', 'ten']),
      cli(['org', 'list', '--page', '1.5']),
      cli(['org', 'list', '--status', 'closed']),
      cli(['org', 'get']),
      cli(['key', 'list']),
    ]);
    for (const [result, message] of [
      [badLimit, /^--limit must be a whole number \(got 'ten'\) \(usage: gateway org list /],
      [badPage, /^--page must be a whole number \(got '1\.5'\) \(usage: gateway org list /],
      [badStatus, /^--status must be one of active, inactive, blocked \(got 'closed'\) \(usage: gateway org list /],
      [noId, /^missing ID \(usage: gateway org get ID\)$/],
      [noOrg, /^--org is required \(usage: gateway key list --org ID\)$/],
    ] as const) {
      expect(result.code).toBe(1);
      expect(result.json).toEqual({ error: expect.stringMatching(message) });
    }
  });
});
