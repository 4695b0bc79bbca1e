/**
 * API keys are `gw_sk_` + 256 random bits; the gateway keeps only their SHA-256 digest and a short
 * display prefix, which cannot be used to authenticate.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/domain/operations.js';
import { useGateway } from '../../support/gateway.js';

const INVALID_API_KEY = { error: 'Invalid API key' };
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

const gateway = useGateway();
let organizationId: string;
beforeAll(async () => {
  organizationId = (await gateway.createOrganization()).id;
});

const issue = (scope = 'checkout') => createApiKey(gateway.ctx, gateway.operator, organizationId, scope);

/** Every row of every table in the test database, as JSON text, that contains `needle`. */
async function rowsContaining(needle: string): Promise<string[]> {
  const tables = await gateway.ctx.db.$queryRawUnsafe<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  expect(tables.map((table) => table.table_name)).toContain('ApiKey');
  const hits: string[] = [];
  for (const { table_name } of tables) {
    const rows = await gateway.ctx.db.$queryRawUnsafe<{ row: string }[]>(
      `SELECT row_to_json(t)::text AS row FROM "${table_name.replaceAll('"', '""')}" t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`,
      needle,
    );
    hits.push(...rows.map((row) => `${table_name}: ${row.row}`));
  }
  return hits;
}

describe('API key format', () => {
  it('starts with gw_sk_ followed by at least 43 base64url characters (>= 256 bits)', async () => {
    const { secret } = await issue();
    expect(secret.startsWith('gw_sk_')).toBe(true);
    const random = secret.slice('gw_sk_'.length);
    expect(random).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(random.length).toBeGreaterThanOrEqual(43);
    // 43 base64url characters carry 43 x 6 = 258 bits.
    expect(random.length * 6).toBeGreaterThanOrEqual(256);
  });

  it('differs from one key to the next', async () => {
    const secrets = await Promise.all(Array.from({ length: 20 }, async () => (await issue()).secret));
    expect(new Set(secrets).size).toBe(20);
    // Not merely different suffixes: no two keys share their random part's first 16 characters.
    expect(new Set(secrets.map((secret) => secret.slice(6, 22))).size).toBe(20);
  });

  it('is issued by the test harness in the same format', async () => {
    const key = await gateway.createKey(organizationId, 'read');
    expect(key).toMatch(/^gw_sk_[A-Za-z0-9_-]{43,}$/);
  });
});

describe('API key storage', () => {
  it('stores the lowercase hex SHA-256 digest of the whole key', async () => {
    const { secret, apiKey } = await issue();
    const row = await gateway.ctx.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(row.keyDigest).toBe(sha256(secret));
    expect(row.keyDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(row.organizationId).toBe(organizationId);
    expect(row.scope).toBe('checkout');
  });

  it('keeps the raw key out of every column of the stored row', async () => {
    const { secret, apiKey } = await issue();
    const row = await gateway.ctx.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    const serialised = JSON.stringify(row, (_name, value) => (typeof value === 'bigint' ? value.toString() : value));
    expect(serialised).not.toContain(secret);
    // Nor its random part, which is what makes it secret.
    expect(serialised).not.toContain(secret.slice('gw_sk_'.length));
    for (const [column, value] of Object.entries(row)) {
      expect({ column, containsKey: String(value).includes(secret.slice('gw_sk_'.length, 'gw_sk_'.length + 20)) }).toStrictEqual({
        column,
        containsKey: false,
      });
    }
  });

  it('keeps the raw key out of every table of the database, even after the key has been used', async () => {
    const { secret } = await issue();
    const used = await gateway.rest('GET', '/api/v2/transactions', { key: secret });
    expect(used.status).toBe(200);
    expect(await rowsContaining(secret.slice('gw_sk_'.length))).toEqual([]);
    // The scan does find what is there: the digest is in ApiKey.
    expect(await rowsContaining(sha256(secret))).toHaveLength(1);
  });

  it('stores a display prefix that is the start of the key and much shorter than it', async () => {
    const { secret, apiKey } = await issue();
    const row = await gateway.ctx.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(row.prefix.startsWith('gw_sk_')).toBe(true);
    expect(secret.startsWith(row.prefix)).toBe(true);
    // At most a few characters of the random part: far from the 43 that make the key.
    expect(row.prefix.length - 'gw_sk_'.length).toBeLessThanOrEqual(12);
  });

  it('does not authenticate with the display prefix or the digest', async () => {
    const { secret, apiKey } = await issue();
    const row = await gateway.ctx.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    for (const credential of [row.prefix, row.keyDigest, `gw_sk_${row.keyDigest}`, `${row.prefix}${'A'.repeat(secret.length - row.prefix.length)}`]) {
      const response = await gateway.rest('GET', '/api/v2/transactions', { key: credential });
      expect({ credential, status: response.status, body: response.body }).toStrictEqual({ credential, status: 401, body: INVALID_API_KEY });
    }
    const genuine = await gateway.rest('GET', '/api/v2/transactions', { key: secret });
    expect(genuine.status).toBe(200);
  });
});
