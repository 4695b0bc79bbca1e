/**
 * Operator roles end to end: the real CLI (`bin/gateway.js`) against a real gateway process
 * (dist/main.js), acting with whatever token GATEWAY_ADMIN_TOKEN holds. The bootstrap token is an
 * admin and issues tokens (`operator-token create --role R` prints {"id", "token", "role"}, the
 * token only there); an analyst token lists organisations but cannot create one; a support token
 * approves a payout awaiting review but cannot create an organisation; `operator-token revoke ID`
 * makes the next command with that token fail. Payouts are created through REST on the test's
 * in-process gateway, which shares the process's database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { TEST_WEBHOOK_SERVER_KEY, useGateway } from '../support/gateway.js';
import { PHONES, expectPayout, fundedMerchant, payoutBody, postPayout } from '../support/payouts.js';
import { startGatewayProcess, type GatewayProcess } from '../support/processes.js';

const BOOTSTRAP_TOKEN = 'gw_op_cli_operator_tokens_bootstrap_0123456789';
const OPERATOR_FORBIDDEN = { error: 'This operator role cannot perform this action' };

const gateway = useGateway();
let instance: GatewayProcess;

beforeAll(async () => {
  instance = await startGatewayProcess({
    DATABASE_URL: gateway.databaseUrl,
    GATEWAY_ADMIN_TOKEN: BOOTSTRAP_TOKEN,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SERVER_KEY,
  });
}, 90_000);

afterAll(async () => {
  await instance?.stop();
});

/** `gateway ...args` against the process, acting with `token`: its exit code and its one JSON object. */
const cli = async (token: string, ...args: string[]) => {
  const { code, json, stdout } = await runCli(gateway, args, { GATEWAY_URL: instance.url, GATEWAY_ADMIN_TOKEN: token });
  return { code, json, stdout };
};

/** A token issued by the bootstrap admin through the CLI. */
async function issued(role: 'admin' | 'analyst' | 'support'): Promise<{ id: string; token: string }> {
  const { code, json } = await cli(BOOTSTRAP_TOKEN, 'operator-token', 'create', '--role', role);
  expect(code, JSON.stringify(json)).toBe(0);
  return json;
}

const organizationsNamed = (name: string) => gateway.ctx.db.organization.count({ where: { name } });

describe('gateway operator-token', () => {
  it('create: the bootstrap token (an admin) issues a token of each role, printed once as {id, token, role}', async () => {
    const results = await Promise.all(
      (['admin', 'analyst', 'support'] as const).map((role) => cli(BOOTSTRAP_TOKEN, 'operator-token', 'create', '--role', role)),
    );
    for (const [index, role] of (['admin', 'analyst', 'support'] as const).entries()) {
      const { code, json } = results[index]!;
      expect(code).toBe(0);
      expect(Object.keys(json).sort()).toEqual(['id', 'role', 'token']);
      expect(json).toMatchObject({ id: expect.any(String), role, token: expect.stringMatching(/^gw_op_[A-Za-z0-9_-]{43}$/) });
    }

    // The issued admin token is an admin too: it creates an organisation.
    const name = `Created by an issued admin ${Date.now()}`;
    const created = await cli(results[0]!.json.token, 'org', 'create', '--name', name);
    expect(created.code, JSON.stringify(created.json)).toBe(0);
    expect(await organizationsNamed(name)).toBe(1);
  });

  it('an analyst token lists organisations but `org create` and `operator-token create` print {"error"} and exit 1', async () => {
    await gateway.createOrganization();
    const analyst = await issued('analyst');

    const listed = await cli(analyst.token, 'org', 'list');
    expect(listed.code, JSON.stringify(listed.json)).toBe(0);
    expect(listed.json.organizations.length).toBeGreaterThan(0);
    expect(listed.json.pagination.totalCount).toBeGreaterThan(0);

    const name = `Not by an analyst ${Date.now()}`;
    const [create, issue] = await Promise.all([
      cli(analyst.token, 'org', 'create', '--name', name),
      cli(analyst.token, 'operator-token', 'create', '--role', 'admin'),
    ]);
    expect(create).toMatchObject({ code: 1, json: OPERATOR_FORBIDDEN });
    expect(issue).toMatchObject({ code: 1, json: OPERATOR_FORBIDDEN });
    expect(await organizationsNamed(name)).toBe(0);
  });

  it('a support token approves a payout awaiting review, but `org create` prints {"error"} and exits 1', async () => {
    const { key } = await fundedMerchant(gateway, { balance: 3_000_000 });
    const payout = expectPayout(await postPayout(gateway, key, payoutBody({ amount: 2_500_000, recipient: { phone: PHONES.succeeds } })), 'pending');
    const support = await issued('support');

    const approved = await cli(support.token, 'payout', 'approve', payout.order_id);
    expect(approved.code, JSON.stringify(approved.json)).toBe(0);
    expect(approved.json).toMatchObject({ orderId: payout.order_id, status: 'completed', awaitingReview: false });
    expect((await gateway.rest('GET', `/api/v2/payouts/${payout.order_id}`, { key })).body.payout_status).toBe('completed');

    const name = `Not by support ${Date.now()}`;
    expect(await cli(support.token, 'org', 'create', '--name', name)).toMatchObject({ code: 1, json: OPERATOR_FORBIDDEN });
    expect(await organizationsNamed(name)).toBe(0);
  });

  it('list prints every issued token’s metadata, never a token; every role may list', async () => {
    const [analyst, support] = await Promise.all([issued('analyst'), issued('support')]);
    for (const token of [BOOTSTRAP_TOKEN, analyst.token]) {
      const { code, json, stdout } = await cli(token, 'operator-token', 'list');
      expect(code, stdout).toBe(0);
      expect(Object.keys(json)).toEqual(['tokens']);
      expect(json.tokens.find((listed: { id: string }) => listed.id === support.id)).toEqual({
        id: support.id,
        role: 'support',
        prefix: support.token.slice(0, 14),
        revoked: false,
        revokedAt: null,
        createdAt: expect.any(String),
      });
      expect(stdout).not.toContain(support.token);
      expect(stdout).not.toContain(analyst.token);
    }
  });

  it('revoke ID: the next command with that token prints {"error": "Invalid API key"} and exits 1; others keep working', async () => {
    const [revokedOne, keptOne] = await Promise.all([issued('analyst'), issued('analyst')]);
    expect((await cli(revokedOne.token, 'org', 'list')).code).toBe(0);

    const revoked = await cli(BOOTSTRAP_TOKEN, 'operator-token', 'revoke', revokedOne.id);
    expect(revoked.code, JSON.stringify(revoked.json)).toBe(0);
    expect(revoked.json).toEqual({ id: revokedOne.id, role: 'analyst', revoked: true, revokedAt: expect.any(String), propagationConfirmed: true });

    const [refused, kept] = await Promise.all([cli(revokedOne.token, 'org', 'list'), cli(keptOne.token, 'org', 'list')]);
    expect(refused).toMatchObject({ code: 1, json: { error: 'Invalid API key' } });
    expect(kept.code).toBe(0);
  });

  it('refuses a bad role, an unknown id and a non-admin revoke with {"error"} and exit 1', async () => {
    const support = await issued('support');
    const [badRole, noRole, unknown, malformed, bySupport] = await Promise.all([
      cli(BOOTSTRAP_TOKEN, 'operator-token', 'create', '--role', 'root'),
      cli(BOOTSTRAP_TOKEN, 'operator-token', 'create'),
      cli(BOOTSTRAP_TOKEN, 'operator-token', 'revoke', '00000000-0000-4000-8000-000000000000'),
      cli(BOOTSTRAP_TOKEN, 'operator-token', 'revoke', 'not-an-id'),
      cli(support.token, 'operator-token', 'revoke', support.id),
    ]);
    expect(badRole).toMatchObject({ code: 1, json: { error: expect.stringMatching(/^--role must be one of admin, analyst, support \(got 'root'\)/) } });
    expect(noRole).toMatchObject({ code: 1, json: { error: expect.stringMatching(/^--role is required/) } });
    expect(unknown).toMatchObject({ code: 1, json: { error: 'Operator token not found' } });
    expect(malformed).toMatchObject({ code: 1, json: { error: 'Operator token not found' } });
    expect(bySupport).toMatchObject({ code: 1, json: OPERATOR_FORBIDDEN });
    expect((await cli(support.token, 'org', 'list')).code).toBe(0);
  });
});
