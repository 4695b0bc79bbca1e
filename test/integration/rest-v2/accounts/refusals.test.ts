/**
 * What GET /accounts* refuses: a malformed id (400 `Invalid account ID`), an unknown or another
 * organisation's id (404 `Account not found`, alike), keys whose scope is not read, readAndWrite
 * or management (403), no key (401), a blocked organisation (403).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { updateOrganization } from '../../../../src/domain/operations.js';
import { expectCatalogueError } from '../../../support/assertions.js';
import { useGateway } from '../../../support/gateway.js';

const gateway = useGateway();
const SCOPES = ['checkout', 'read', 'write', 'readAndWrite', 'payout', 'management'] as const;
const ALLOWED = new Set(['read', 'readAndWrite', 'management']);

let organizationId: string;
let mainId: string;
let foreignId: string;
const keys = {} as Record<(typeof SCOPES)[number], string>;

beforeAll(async () => {
  const organization = await gateway.createOrganization();
  organizationId = organization.id;
  mainId = organization.accounts.find((account) => account.name === 'main')!.id;
  foreignId = (await gateway.createOrganization()).accounts[0]!.id;
  for (const scope of SCOPES) keys[scope] = await gateway.createKey(organizationId, scope);
});

describe('GET /api/v2/accounts/{id} refuses ids it will not answer for', () => {
  it.each(['not-a-uuid', '123', 'stats2', `${randomUUID()}x`, "1' OR '1'='1"])('a malformed id %j: 400 Invalid account ID', async (id) => {
    expectCatalogueError(await gateway.rest('GET', `/api/v2/accounts/${encodeURIComponent(id)}`, { key: keys.read }), 'invalid_account_id');
  });

  it('an unknown id and another organisation’s account alike: 404 Account not found', async () => {
    expectCatalogueError(await gateway.rest('GET', `/api/v2/accounts/${randomUUID()}`, { key: keys.read }), 'account_not_found');
    expectCatalogueError(await gateway.rest('GET', `/api/v2/accounts/${foreignId}`, { key: keys.read }), 'account_not_found');
  });
});

const ROUTES = [
  { name: 'GET /accounts', path: () => '/api/v2/accounts' },
  { name: 'GET /accounts/stats', path: () => '/api/v2/accounts/stats' },
  { name: 'GET /accounts/{id}', path: () => `/api/v2/accounts/${mainId}` },
];

describe('the scope table: read, readAndWrite and management read accounts; others get 403', () => {
  it.each(ROUTES.flatMap((route) => SCOPES.map((scope) => [route.name, scope, route] as const)))('%s with a %s key', async (_name, scope, route) => {
    const response = await gateway.rest('GET', route.path(), { key: keys[scope] });
    if (ALLOWED.has(scope)) expect(response.status).toBe(200);
    else expectCatalogueError(response, 'permission_denied');
  });

  it.each(ROUTES.map((route) => [route.name, route] as const))('%s without a key: 401; for a blocked organisation: 403', async (_name, route) => {
    expectCatalogueError(await gateway.rest('GET', route.path()), 'invalid_api_key');
    const blocked = await gateway.merchant({ scope: 'read' });
    await updateOrganization(gateway.ctx, gateway.operator, blocked.organization.id, { status: 'blocked' });
    const path = route.name === 'GET /accounts/{id}' ? `/api/v2/accounts/${blocked.organization.accounts[0]!.id}` : route.path();
    expectCatalogueError(await gateway.rest('GET', path, { key: blocked.key }), 'organization_blocked');
  });

  it('a refused scope is refused before the id is looked at (no existence probe)', async () => {
    expectCatalogueError(await gateway.rest('GET', '/api/v2/accounts/not-a-uuid', { key: keys.checkout }), 'permission_denied');
  });
});
