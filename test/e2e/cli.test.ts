/**
 * The operator CLI end to end: the real `bin/gateway.js` as a child process against a real
 * gateway, checking its one JSON object on stdout and its exit code, then checking the effect on
 * REST. Each spawn pays a process start-up, so commands are batched where possible; the other CLI
 * tests call the CLI in process (test/support/cli.ts).
 */
import { describe, expect, it } from 'vitest';
import { transactionBody, useGateway } from '../support/gateway.js';
import { runCliProcess } from '../support/cli.js';

const gateway = useGateway();

/** The exit code and the JSON printed (what the contract promises), without the raw text. */
const cli = async (args: string[], env: Record<string, string> = {}) => {
  const { code, json } = await runCliProcess(gateway, args, env);
  return { code, json };
};

describe('gateway CLI', () => {
  it('org create: server defaults, flags, and an empty --sector', async () => {
    const [plain, flagged, noSector] = await Promise.all([
      cli(['org', 'create', '--name', 'Boutique Dakar']),
      cli(['org', 'create', '--name', 'Keur Shop', '--verified', '--escrow', '--payouts', '--methods', 'wave', '--sector', 'retail']),
      cli(['org', 'create', '--name', 'Sans secteur', '--sector', '']),
    ]);

    expect(plain.code).toBe(0);
    expect(plain.json).toMatchObject({
      name: 'Boutique Dakar',
      status: 'active',
      verified: false,
      escrowEnabled: false,
      payoutEnabled: false,
      allowedMethods: expect.arrayContaining(['wave', 'orange_money']),
      businessSector: 'general',
    });
    expect(plain.json.id).toEqual(expect.any(String));
    expect(plain.json.accounts.map((account: { name: string }) => account.name).sort()).toEqual(['escrow', 'main']);
    expect(plain.json.accounts[0].id).toEqual(expect.any(String));

    expect(flagged.code).toBe(0);
    expect(flagged.json).toMatchObject({ verified: true, escrowEnabled: true, payoutEnabled: true, allowedMethods: ['wave'], businessSector: 'retail' });

    expect(noSector.code).toBe(0);
    expect(noSector.json.businessSector).toBeNull();
  });

  it('org update: status, limits, verified false', async () => {
    const organization = await gateway.createOrganization({ verified: true });
    const result = await cli([
      'org',
      'update',
      organization.id,
      '--status',
      'blocked',
      '--verified',
      'false',
      '--min-amount',
      '100',
      '--max-amount',
      '500000',
      '--max-payout',
      '200000',
    ]);

    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({
      id: organization.id,
      status: 'blocked',
      verified: false,
      minTransactionAmount: 100,
      maxTransactionAmount: 500000,
      maxPayoutAmount: 200000,
    });
  });

  it('key create gives a working key; key revoke stops it at once', async () => {
    const organization = await gateway.createOrganization();
    const created = await cli(['key', 'create', '--org', organization.id, '--scope', 'checkout']);
    expect(created.code).toBe(0);
    expect(created.json).toEqual({ id: expect.any(String), key: expect.stringMatching(/^gw_sk_/), scope: 'checkout' });
    const { key } = created.json;
    expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() })).status).toBe(200);

    const revoked = await cli(['key', 'revoke', created.json.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.json).toEqual({ id: created.json.id, revoked: true, propagationConfirmed: true });
    expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() })).status).toBe(401);
  });

  it('switch set transactions off stops new transactions; on restores them', async () => {
    const { key } = await gateway.merchant();
    const off = await cli(['switch', 'set', 'transactions', 'off']);
    expect(off).toEqual({ code: 0, json: { switch: 'transactions', on: false } });
    try {
      expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() })).status).toBe(503);
    } finally {
      // Turned back on even when the check fails, so later tests see a working gateway.
      const on = await cli(['switch', 'set', 'transactions', 'on']);
      expect(on).toEqual({ code: 0, json: { switch: 'transactions', on: true } });
    }
    expect((await gateway.rest('POST', '/api/v2/transactions', { key, body: transactionBody() })).status).toBe(200);
  });

  it('failures print {"error"} and exit 1', async () => {
    const [wrongToken, unknownCommand, badAmount, badSwitch, unreachable] = await Promise.all([
      cli(['switch', 'set', 'wave', 'on'], { GATEWAY_ADMIN_TOKEN: 'gw_op_not_a_real_token' }),
      cli(['org', 'delete', 'x']),
      cli(['org', 'update', 'x', '--min-amount', 'abc']),
      cli(['switch', 'set', 'x', 'maybe']),
      cli(['switch', 'set', 'wave', 'on'], { GATEWAY_URL: 'http://127.0.0.1:1' }),
    ]);

    expect(wrongToken).toEqual({ code: 1, json: { error: 'Invalid API key' } });
    expect(unknownCommand.code).toBe(1);
    expect(unknownCommand.json.error).toMatch(/unknown command 'org delete'/);
    expect(badAmount.code).toBe(1);
    expect(badAmount.json.error).toMatch(/--min-amount must be a whole number/);
    expect(badSwitch.code).toBe(1);
    expect(badSwitch.json.error).toMatch(/switch must be one of transactions, payouts, wave, orange_money/);
    expect(unreachable.code).toBe(1);
    expect(unreachable.json.error).toMatch(/^cannot reach the gateway at http:\/\/127\.0\.0\.1:1: /);
  });
});
