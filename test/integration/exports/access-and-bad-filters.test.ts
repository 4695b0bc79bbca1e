/**
 * The exports are authorised as the v2 lists are (same refusals, same words), take operator tokens
 * too, and refuse a bad filter with the list's own 400 before anything is streamed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../../support/gateway.js';

const gateway = useGateway();
let keys: Record<'checkout' | 'payout' | 'management' | 'read', string>;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  const organization = await gateway.createOrganization();
  organizationId = organization.id;
  otherOrganizationId = (await gateway.createOrganization()).id;
  keys = {
    checkout: await gateway.createKey(organizationId, 'checkout'),
    payout: await gateway.createKey(organizationId, 'payout'),
    management: await gateway.createKey(organizationId, 'management'),
    read: await gateway.createKey(organizationId, 'read'),
  };
});

async function call(path: string, authorization?: string) {
  const response = await fetch(`${gateway.url}${path}`, { headers: authorization ? { authorization } : {} });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
  };
}

const EXPORTS = [
  ['transactions', '/exports/transactions.csv', '/api/v2/transactions'],
  ['payouts', '/exports/payouts.csv', '/api/v2/payouts'],
] as const;

describe.each(EXPORTS)('the %s export', (_name, exportPath, listPath) => {
  it.each(['checkout', 'payout', 'management', 'read'] as const)('answers a %s key as the v2 list does', async (scope) => {
    const exported = await call(exportPath, `Bearer ${keys[scope]}`);
    const listed = await call(listPath, `Bearer ${keys[scope]}`);
    expect(exported.status).toBe(listed.status);
    if (listed.status === 200) expect(exported.type).toBe('text/csv; charset=utf-8');
    else expect(exported.body).toEqual(listed.body);
  });

  it('refuses a missing or unknown credential as the v2 list does', async () => {
    for (const authorization of [undefined, 'Bearer gw_sk_unknown', 'Basic abc']) {
      const exported = await call(exportPath, authorization);
      const listed = await call(listPath, authorization);
      expect({ status: exported.status, body: exported.body }).toEqual({ status: 401, body: listed.body });
    }
  });

  it("refuses a merchant naming another organisation's id, and accepts its own", async () => {
    const key = exportPath.includes('payouts') ? keys.payout : keys.checkout;
    expect(await call(`${exportPath}?organization_id=${otherOrganizationId}`, `Bearer ${key}`)).toMatchObject({
      status: 403,
      body: { error: "You don't have permission to perform this action" },
    });
    expect((await call(`${exportPath}?organization_id=${organizationId}`, `Bearer ${key}`)).status).toBe(200);
  });

  it.each([
    ['status=bogus'],
    ['payment_method=card'],
    ['min_amount=abc'],
    ['min_amount=-1'],
    ['min_amount=500&max_amount=100'],
    ['start_date=yesterday'],
    ['start_date=2026-02-30T00:00:00Z'],
    ['include_deleted=yes'],
    ['status=paid&status=pending'],
    [`search=${'x'.repeat(1000)}`],
  ])("refuses %s with the v2 list's 400", async (query) => {
    const key = exportPath.includes('payouts') ? keys.payout : keys.checkout;
    const exported = await call(`${exportPath}?${query}`, `Bearer ${key}`);
    const listed = await call(`${listPath}?${query}`, `Bearer ${key}`);
    expect(listed.status).toBe(400);
    expect({ status: exported.status, body: exported.body }).toEqual({ status: 400, body: listed.body });
  });

  it.each(['page=2', 'limit=50'])('refuses %s: an export has no pages', async (query) => {
    const key = exportPath.includes('payouts') ? keys.payout : keys.checkout;
    const exported = await call(`${exportPath}?${query}`, `Bearer ${key}`);
    expect(exported.status).toBe(400);
    expect(exported.body.error).toMatch(/^Invalid query parameter: (page|limit) does not apply to an export/);
  });

  it('takes the operator token that the v2 list refuses', async () => {
    expect((await call(listPath, `Bearer ${gateway.adminToken}`)).status).toBe(401);
    expect((await call(exportPath, `Bearer ${gateway.adminToken}`)).status).toBe(200);
  });
});
