/**
 * The bench's own database: created once, migrated by the gateway itself, seeded with one
 * organisation and SEED.transactions transactions, and reused while its seed is intact.
 *
 * Why reuse: the seed is deterministic (every value derives from its row number), so a reused
 * seed holds the same data a new one would; reusing saves the seeding time on every run after
 * the first. A seed is intact when its marker (bench.seed) has this version and the organisation
 * still holds exactly the seeded rows; rows that earlier runs' create scenarios added are deleted
 * first. `--fresh` drops the database and seeds again.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { API_KEY_PREFIX } from '../src/domain/access/auth.js';
import { ORGANIZATION_ACCOUNTS } from '../src/domain/organizations/organizations.js';
import { insertSeedChunk, prepareSeedSession } from './seedSql.js';
import { BENCH_DATABASE, LIMITS, POSTGRES_ADMIN_URL, SEED } from './settings.js';

export interface Seed {
  organizationId: string;
  transactions: number;
  products: number;
  /** Newest seeded created_at: anything later was added by a run. */
  seededUntil: Date;
  insertSeconds: number;
  vacuumSeconds: number;
}

export const benchDatabaseUrl = (): string => {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${BENCH_DATABASE}`;
  return url.toString();
};

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, statement_timeout: SEED.statementTimeoutMs });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates the database if missing (or drops it first when `fresh`). Returns whether it was created. */
export async function ensureDatabase(fresh: boolean): Promise<boolean> {
  return withClient(POSTGRES_ADMIN_URL, async (admin) => {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${BENCH_DATABASE}" WITH (FORCE)`);
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DATABASE])).rowCount === 1;
    if (!exists) await admin.query(`CREATE DATABASE "${BENCH_DATABASE}"`);
    return !exists;
  });
}

/** The intact seed, after deleting what earlier runs added to it; null when it must be seeded. */
export async function intactSeed(): Promise<Seed | null> {
  return withClient(benchDatabaseUrl(), async (client) => {
    // Each run gives the gateway new secrets (servers.ts): forget the fingerprints an earlier run's
    // gateway recorded, or it would refuse to start as a host with the wrong secrets (a rotation).
    await client.query(`DELETE FROM "SharedSecretFingerprint"`).catch(() => undefined);
    const marker = await client.query(`SELECT * FROM bench.seed WHERE version = $1`, [SEED.version]).catch(() => null);
    const row = marker?.rows[0];
    if (!row || row.transactions !== SEED.transactions) return null;
    // The money scenarios' rows: their ledger entries first (the seed itself has none), and the
    // balances they moved back to zero.
    await client.query(`DELETE FROM "LedgerEntry"`);
    await client.query(`UPDATE "Account" SET balance = 0 WHERE balance <> 0`);
    await client.query(`DELETE FROM "Organization" WHERE name LIKE $1`, [`${PAYOUT_ORGANIZATION_NAME}%`]);
    // A run stopped mid-drain left webhook deliveries: gone before the gateway starts sending them.
    await client.query(`DELETE FROM "Organization" WHERE name LIKE $1`, [`${WEBHOOK_ORGANIZATION_NAME}%`]);
    const added = await client.query(`DELETE FROM "Transaction" WHERE "organizationId" = $1 AND "createdAt" > $2`, [row.organization_id, row.seeded_until]);
    if (added.rowCount) await client.query(`VACUUM (ANALYZE) "Transaction", "TransactionProduct"`);
    const count = await client.query(`SELECT count(*)::int AS n FROM "Transaction" WHERE "organizationId" = $1`, [row.organization_id]);
    if (count.rows[0].n !== SEED.transactions) return null;
    return {
      organizationId: row.organization_id,
      transactions: row.transactions,
      products: row.products,
      seededUntil: row.seeded_until,
      insertSeconds: row.insert_seconds,
      vacuumSeconds: row.vacuum_seconds,
    };
  });
}

/** Seeds a migrated database from scratch: the organisation, then the transactions in parallel chunks. */
export async function seed(log: (line: string) => void): Promise<Seed> {
  const url = benchDatabaseUrl();
  const organizationId = randomUUID();
  const seededUntil = new Date(Math.floor(Date.now() / 1000) * 1000);
  await withClient(url, (client) => resetAndCreateOrganization(client, organizationId));
  const started = performance.now();
  await insertInParallel(url, organizationId, seededUntil, log);
  const insertSeconds = Math.round(performance.now() - started) / 1000;
  const vacuumStarted = performance.now();
  // A fresh bulk load has no visibility map and no statistics: without this, autovacuum would
  // run during the measurements and the planner would guess.
  await withClient(url, (client) => client.query(`VACUUM (ANALYZE) "Transaction", "TransactionProduct"`));
  const vacuumSeconds = Math.round(performance.now() - vacuumStarted) / 1000;
  const products = await withClient(url, async (client) => (await client.query(`SELECT count(*)::int AS n FROM "TransactionProduct"`)).rows[0].n as number);
  const result: Seed = { organizationId, transactions: SEED.transactions, products, seededUntil, insertSeconds, vacuumSeconds };
  await withClient(url, (client) => writeMarker(client, result));
  return result;
}

async function resetAndCreateOrganization(client: pg.Client, organizationId: string): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS bench CASCADE; TRUNCATE "Organization" CASCADE`);
  // Verified (no monthly limit), with a sector (a complete profile), escrow on: every create is accepted.
  await client.query(
    `INSERT INTO "Organization" (id, name, verified, "escrowEnabled", "businessSector", "updatedAt") VALUES ($1, 'Bench Shop', true, true, 'retail', now())`,
    [organizationId],
  );
  for (const account of ORGANIZATION_ACCOUNTS) {
    await client.query(`INSERT INTO "Account" (id, "organizationId", name, type, "updatedAt") VALUES (gen_random_uuid(), $1, $2, $3, now())`, [
      organizationId,
      account.name,
      account.type,
    ]);
  }
}

/** SEED.workers sessions take chunks in order until none is left. */
async function insertInParallel(url: string, organizationId: string, end: Date, log: (line: string) => void): Promise<void> {
  const chunks: [number, number][] = [];
  for (let first = 1; first <= SEED.transactions; first += SEED.chunk) chunks.push([first, Math.min(first + SEED.chunk - 1, SEED.transactions)]);
  let next = 0;
  const worker = () =>
    withClient(url, async (client) => {
      await prepareSeedSession(client);
      for (let chunk = chunks[next++]; chunk; chunk = chunks[next++]) {
        await insertSeedChunk(client, [organizationId, chunk[0], chunk[1], SEED.transactions, end.toISOString(), SEED.spanDays]);
        if (chunk[1] % (SEED.chunk * 4) === 0) log(`  seeded ${chunk[1].toLocaleString('en')} transactions`);
      }
    });
  await Promise.all(Array.from({ length: SEED.workers }, worker));
}

async function writeMarker(client: pg.Client, seed: Seed): Promise<void> {
  await client.query(`CREATE SCHEMA bench; CREATE TABLE bench.seed (version text PRIMARY KEY, organization_id uuid, transactions int, products int,
    seeded_until timestamptz, insert_seconds float8, vacuum_seconds float8, created_at timestamptz DEFAULT now())`);
  await client.query(`INSERT INTO bench.seed VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    SEED.version,
    seed.organizationId,
    seed.transactions,
    seed.products,
    seed.seededUntil,
    seed.insertSeconds,
    seed.vacuumSeconds,
  ]);
}

/**
 * A new readAndWrite key for this run (the previous run's keys are deleted): only its SHA-256
 * digest is stored, as the gateway stores keys, so no secret is ever kept in the database.
 */
export async function issueApiKey(organizationId: string): Promise<string> {
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const digest = createHash('sha256').update(secret, 'utf8').digest('hex');
  await withClient(benchDatabaseUrl(), async (client) => {
    await client.query(`DELETE FROM "ApiKey" WHERE "organizationId" = $1`, [organizationId]);
    await client.query(`INSERT INTO "ApiKey" (id, "organizationId", scope, prefix, "keyDigest") VALUES (gen_random_uuid(), $1, 'readAndWrite', $2, $3)`, [
      organizationId,
      secret.slice(0, API_KEY_PREFIX.length + 8),
      digest,
    ]);
  });
  return secret;
}

/** Rows the money scenarios consume, per run: more than the fastest side can use in its runs. */
const MONEY_ROWS = { payable: 80_000, refundable: 40_000, amount: 5_000 } as const;

/**
 * The money scenarios' own rows, added for this run (deleted with the ledger at the next run's
 * start, like the create scenario's): pending transactions to pay, paid ones to refund, and
 * `main` funded to cover every refund by a balanced adjustment posting.
 */
export async function prepareMoneyRows(organizationId: string): Promise<{ payable: string[]; refundable: string[] }> {
  return withClient(benchDatabaseUrl(), async (client) => {
    const insert = (status: string, count: number) =>
      client.query(
        `WITH made AS (
           INSERT INTO "Transaction" (id, "organizationId", amount, "methodOfPayment", status, "selectedPaymentMethod", fees, "payerPhone", "paidAt",
             "successUrl", "errorUrl", "createdAt", "updatedAt")
           SELECT gen_random_uuid(), $1::uuid, $2::bigint, '{wave}', $3::"TransactionStatus",
             CASE WHEN $3 = 'paid' THEN 'wave'::"PaymentMethod" END, CASE WHEN $3 = 'paid' THEN $2::bigint / 100 ELSE 0 END,
             CASE WHEN $3 = 'paid' THEN '+221770000001' END, CASE WHEN $3 = 'paid' THEN now() END,
             'https://shop.example.sn/merci', 'https://shop.example.sn/erreur', now(), now()
           FROM generate_series(1, $4::int) RETURNING id)
         , products AS (INSERT INTO "TransactionProduct" (id, "transactionId", position, name, price, quantity)
           SELECT gen_random_uuid(), id, 0, 'Repas', $2::bigint, 1 FROM made)
         SELECT id FROM made`,
        [organizationId, MONEY_ROWS.amount, status, count],
      );
    const payable = await insert('pending', MONEY_ROWS.payable);
    const refundable = await insert('paid', MONEY_ROWS.refundable);
    const funding = BigInt(MONEY_ROWS.amount) * BigInt(MONEY_ROWS.refundable);
    const posting = randomUUID();
    await client.query(
      `WITH main AS (UPDATE "Account" SET balance = balance + $2::bigint WHERE "organizationId" = $1 AND name = 'main' RETURNING id, balance)
       INSERT INTO "LedgerEntry" (id, "postingId", "accountId", "gatewayAccount", kind, amount, "balanceAfter", description)
       SELECT gen_random_uuid(), $3::uuid, id, NULL::"GatewayAccount", 'adjustment'::"LedgerEntryKind", $2::bigint, balance, 'bench: funds the refund scenario' FROM main
       UNION ALL SELECT gen_random_uuid(), $3::uuid, NULL, 'adjustments'::"GatewayAccount", 'adjustment'::"LedgerEntryKind", -$2::bigint, NULL, 'bench: funds the refund scenario'`,
      [organizationId, funding, posting],
    );
    await client.query(`VACUUM (ANALYZE) "Transaction", "Account"`);
    return { payable: payable.rows.map((row: { id: string }) => row.id), refundable: refundable.rows.map((row: { id: string }) => row.id) };
  });
}

/** The payment link scenario's link is named so (replaced at each run's start; its transactions stay, unlinked). */
const BENCH_LINK_NAME = 'Bench payment link';

/**
 * A reusable payment link of the seeded organisation for this run: the link page scenarios open it
 * and fill it (each POST makes one pending transaction, as a customer's would).
 */
export async function preparePaymentLink(organizationId: string): Promise<string> {
  return withClient(benchDatabaseUrl(), async (client) => {
    await client.query(`DELETE FROM "PaymentLink" WHERE "organizationId" = $1 AND name = $2`, [organizationId, BENCH_LINK_NAME]);
    const made = await client.query(
      `INSERT INTO "PaymentLink" (id, "organizationId", name, amount, products, "methodOfPayment", "updatedAt")
       VALUES (gen_random_uuid(), $1, $2, 5000, $3::jsonb, '{wave,orange_money}', now()) RETURNING id`,
      [organizationId, BENCH_LINK_NAME, JSON.stringify([{ name: 'Thiéboudienne', price: 2500, quantity: 2, description: null }])],
    );
    return made.rows[0].id as string;
  });
}

/** The webhook dispatch scenario's organisations are named so (deleted at its end, and at the next run's start). */
export const WEBHOOK_ORGANIZATION_NAME = 'Bench webhooks ';

/** The payout scenario's organisations are named so (deleted, with their payouts, at the next run's start). */
const PAYOUT_ORGANIZATION_NAME = 'Bench payouts ';
/**
 * Organisations the payout scenario spreads over: one payout runs per organisation at a time
 * (409 otherwise), and at LOAD.connections requests in flight, taken round robin, the same one
 * comes back only after this many others.
 */
const PAYOUT_ORGANIZATIONS = 500;

/**
 * Payout-enabled organisations with a funded `main` (a balanced adjustment posting each) and a
 * `payout` key each, for this run. Returns their keys.
 */
export async function preparePayoutOrganizations(): Promise<string[]> {
  return withClient(benchDatabaseUrl(), async (client) => {
    const secrets = Array.from({ length: PAYOUT_ORGANIZATIONS }, () => API_KEY_PREFIX + randomBytes(32).toString('base64url'));
    const digests = secrets.map((secret) => createHash('sha256').update(secret, 'utf8').digest('hex'));
    const prefixes = secrets.map((secret) => secret.slice(0, API_KEY_PREFIX.length + 8));
    await client.query(
      `WITH orgs AS (
         INSERT INTO "Organization" (id, name, verified, "payoutEnabled", "businessSector", "updatedAt")
         SELECT gen_random_uuid(), $1 || i, true, true, 'retail', now() FROM generate_series(1, $2::int) i RETURNING id, name),
       numbered AS (SELECT id, substring(name FROM length($1) + 1)::int AS i FROM orgs),
       keys AS (
         INSERT INTO "ApiKey" (id, "organizationId", scope, prefix, "keyDigest")
         SELECT gen_random_uuid(), n.id, 'payout', ($3::text[])[n.i], ($4::text[])[n.i] FROM numbered n),
       accounts AS (
         INSERT INTO "Account" (id, "organizationId", name, type, balance, "updatedAt")
         SELECT gen_random_uuid(), n.id, a.name::"AccountName", a.type, CASE WHEN a.name = 'main' THEN $5::bigint ELSE 0 END, now()
         FROM numbered n, (VALUES ('main', 'operating'), ('escrow', 'escrow')) AS a(name, type)
         RETURNING id, name, balance),
       funded AS (SELECT id, balance, gen_random_uuid() AS posting FROM accounts WHERE name = 'main')
       INSERT INTO "LedgerEntry" (id, "postingId", "accountId", "gatewayAccount", kind, amount, "balanceAfter", description)
       SELECT gen_random_uuid(), posting, id, NULL::"GatewayAccount", 'adjustment'::"LedgerEntryKind", balance, balance, 'bench: funds the payout scenario' FROM funded
       UNION ALL
       SELECT gen_random_uuid(), posting, NULL, 'adjustments'::"GatewayAccount", 'adjustment'::"LedgerEntryKind", -balance, NULL, 'bench: funds the payout scenario' FROM funded`,
      [PAYOUT_ORGANIZATION_NAME, PAYOUT_ORGANIZATIONS, prefixes, digests, 1_000_000_000],
    );
    return secrets;
  });
}

/** How often, and how long at most, the bench polls for a quiet database between two runs. */
const QUIET = { pollMs: 100, polls: 3, maxMs: 60_000 } as const;

/**
 * Waits until no query of the bench database is running, QUIET.polls polls in a row. autocannon
 * stops at its deadline, but the requests it leaves in flight keep the servers and PostgreSQL
 * busy (a slow list can queue seconds of work): the next run must not start in their wake.
 */
export async function waitDatabaseQuiet(): Promise<number> {
  const started = performance.now();
  return withClient(benchDatabaseUrl(), async (client) => {
    for (let quiet = 0; quiet < QUIET.polls && performance.now() - started < QUIET.maxMs; ) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      quiet = rows[0].n === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, QUIET.pollMs));
    }
    return Math.round(performance.now() - started);
  });
}

/** Known transaction ids spread over the whole table (a block sample, then random rows of it). */
export async function sampleTransactionIds(organizationId: string): Promise<string[]> {
  return withClient(benchDatabaseUrl(), async (client) => {
    const { rows } = await client.query(`SELECT id FROM "Transaction" TABLESAMPLE SYSTEM (5) WHERE "organizationId" = $1 ORDER BY random() LIMIT $2`, [
      organizationId,
      LIMITS.sampleIds,
    ]);
    return rows.map((row: { id: string }) => row.id);
  });
}
