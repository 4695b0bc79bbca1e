/**
 * The seed as SQL: transactions and their products generated inside PostgreSQL with
 * generate_series (no rows cross the wire, no dependency: faster than COPY from Node here).
 * Shared by the bench and by test/integration/list-uses-index-scans.test.ts.
 *
 * Every value of row i derives from hashes of i (hashint8extended), not random(): two seeds of
 * the same range give the same data, and the products insert recomputes exactly the products the
 * transaction's amount was summed from. Rows go in time order, as a live table fills, so the
 * physical order follows created_at (the planner's correlation statistic sees that too).
 *
 * The spread, per transaction (see the CASEs below):
 *   status   pending 30 %, paid 52 %, paid_and_blocked 3 %, cancelled 10 % (soft-deleted), refunded 5 %
 *   offered  wave + orange_money 55 %, wave 30 %, orange_money 15 %; the paid method is set when paid
 *            (wave 60 % when both were offered)
 *   products 1 (50 %), 2 (30 %) or 3 (20 %) from a catalogue of 24, quantity mostly 1
 *   dates    over SEED.spanDays days ending at the seed time, volume growing about 4x over the year
 *   customer 80 % have one (phones drawn from 200,000), 5 % escrow, 10 % merchant, 30 % fees on customer
 */

import type pg from 'pg';

/** Parameters of both inserts, in order: organisation id, first i, last i, total n, end time, span in days. */
export type SeedRange = [organizationId: string, first: number, last: number, total: number, end: string, spanDays: number];

/**
 * Per-session helpers (pg_temp: nothing is left in the database). SQL functions, so the planner
 * inlines them. u(i, salt) is a uniform number in [0, 1) drawn from (i, salt).
 */
const SEED_FUNCTIONS_SQL = `
CREATE OR REPLACE FUNCTION pg_temp.u(i bigint, salt bigint) RETURNS float8 LANGUAGE sql IMMUTABLE
  AS $$ SELECT (hashint8extended(i, salt) & 2147483647)::float8 / 2147483648.0 $$;
CREATE OR REPLACE FUNCTION pg_temp.product_count(i bigint) RETURNS int LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE WHEN pg_temp.u(i, 6) < 0.5 THEN 1 WHEN pg_temp.u(i, 6) < 0.8 THEN 2 ELSE 3 END $$;
CREATE OR REPLACE FUNCTION pg_temp.product_of(i bigint, j int) RETURNS int LANGUAGE sql IMMUTABLE
  AS $$ SELECT 1 + floor(pg_temp.u(i * 4 + j, 7) * 24)::int $$;
CREATE OR REPLACE FUNCTION pg_temp.quantity_of(i bigint, j int) RETURNS int LANGUAGE sql IMMUTABLE
  AS $$ SELECT 1 + floor(pg_temp.u(i * 4 + j, 8) ^ 4 * 5)::int $$;
CREATE OR REPLACE FUNCTION pg_temp.price_of(c int) RETURNS bigint LANGUAGE sql IMMUTABLE
  AS $$ SELECT (ARRAY[4500, 1500, 1000, 2500, 4800, 200, 350, 800, 25000, 6000, 1000, 2000,
                      15000, 3500, 12000, 500, 7500, 90000, 1250, 3000, 650, 18000, 5000, 2750]::bigint[])[c] $$;
CREATE OR REPLACE FUNCTION pg_temp.name_of(c int) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT (ARRAY['Riz parfumé 5 kg', 'Huile 1 L', 'Sucre 1 kg', 'Lait en poudre 400 g', 'Sac de ciment',
                      'Pain', 'Savon', 'Thé vert', 'Pagne wax', 'Chaussures', 'Crédit téléphone', 'Abonnement TV',
                      'Consultation', 'Livraison', 'Panier légumes', 'Eau 1,5 L', 'Coupe de cheveux', 'Téléphone',
                      'Café Touba', 'Cahiers (lot)', 'Bissap 1 L', 'Billet de bus', 'Repas', 'Carburant']::text[])[c] $$;
`;

/** Transactions i = $2..$3 of $4 for organisation $1, dated up to $5 over $6 days. */
export const INSERT_TRANSACTIONS_SQL = `
INSERT INTO "Transaction" (id, "organizationId", amount, fees, "methodOfPayment", "selectedPaymentMethod", status,
  "customerFirstName", "customerLastName", "customerPhone", "isEscrow", "isMerchant", "feesCustomerSide",
  "successUrl", "errorUrl", "payerPhone", "isDeleted", "paidAt", "refundedAt", "cancelledAt", "createdAt", "updatedAt")
SELECT id, $1::uuid, amount,
  CASE selected WHEN 'wave' THEN amount / 100 WHEN 'orange_money' THEN amount * 3 / 200 ELSE 0 END,
  methods, selected, status,
  CASE WHEN has_customer THEN (ARRAY['Awa', 'Moussa', 'Fatou', 'Ibrahima', 'Aminata', 'Ousmane', 'Mariama', 'Cheikh', 'Khady', 'Mamadou'])[1 + floor(pg_temp.u(i, 11) * 10)::int] END,
  CASE WHEN has_customer THEN (ARRAY['Diop', 'Ndiaye', 'Fall', 'Sow', 'Ba', 'Gueye', 'Sarr', 'Faye', 'Diallo', 'Kane'])[1 + floor(pg_temp.u(i, 12) * 10)::int] END,
  CASE WHEN has_customer THEN phone END,
  pg_temp.u(i, 13) < 0.05, pg_temp.u(i, 14) < 0.10, pg_temp.u(i, 15) < 0.30,
  'https://shop.example.sn/merci', 'https://shop.example.sn/erreur',
  CASE WHEN selected IS NOT NULL THEN phone END,
  status = 'cancelled',
  CASE WHEN selected IS NOT NULL THEN paid END,
  CASE WHEN status = 'refunded' THEN paid + interval '2 days' END,
  CASE WHEN status = 'cancelled' THEN created + interval '30 minutes' END,
  created,
  CASE WHEN status = 'refunded' THEN paid + interval '2 days' WHEN status = 'cancelled' THEN created + interval '30 minutes'
       WHEN selected IS NOT NULL THEN paid ELSE created END
FROM (
  SELECT *,
    CASE WHEN status IN ('paid'::"TransactionStatus", 'paid_and_blocked', 'refunded') THEN
      CASE WHEN cardinality(methods) = 1 THEN methods[1] WHEN pg_temp.u(i, 3) < 0.6 THEN 'wave'::"PaymentMethod" ELSE 'orange_money'::"PaymentMethod" END
    END AS selected,
    created + (60 + pg_temp.u(i, 10) * 540) * interval '1 second' AS paid
  FROM (
    SELECT i, md5('bench:' || i)::uuid AS id,
      $5::timestamptz - ($6 * (1 - power(i::float8 / $4, 0.7))) * interval '1 day' - pg_temp.u(i, 9) * interval '10 minutes' AS created,
      CASE WHEN pg_temp.u(i, 1) < 0.30 THEN 'pending'::"TransactionStatus" WHEN pg_temp.u(i, 1) < 0.82 THEN 'paid'::"TransactionStatus"
           WHEN pg_temp.u(i, 1) < 0.85 THEN 'paid_and_blocked'::"TransactionStatus" WHEN pg_temp.u(i, 1) < 0.95 THEN 'cancelled'::"TransactionStatus"
           ELSE 'refunded'::"TransactionStatus" END AS status,
      CASE WHEN pg_temp.u(i, 2) < 0.55 THEN '{wave,orange_money}'::"PaymentMethod"[] WHEN pg_temp.u(i, 2) < 0.85 THEN '{wave}'::"PaymentMethod"[]
           ELSE '{orange_money}'::"PaymentMethod"[] END AS methods,
      pg_temp.u(i, 4) < 0.8 AS has_customer,
      '+22177' || lpad(floor(pg_temp.u(i, 5) * 200000)::int::text, 7, '0') AS phone,
      -- The sum of the row's 1-3 products, written out rather than as a subquery over
      -- generate_series(1, product_count(i)): the same values (numeric, as sum() made them, so
      -- the fees' divisions round alike) at ~15 % less of the seed's CPU (a subplan per row).
      (pg_temp.price_of(pg_temp.product_of(i, 1)) * pg_temp.quantity_of(i, 1)
        + CASE WHEN pg_temp.product_count(i) >= 2 THEN pg_temp.price_of(pg_temp.product_of(i, 2)) * pg_temp.quantity_of(i, 2) ELSE 0 END
        + CASE WHEN pg_temp.product_count(i) >= 3 THEN pg_temp.price_of(pg_temp.product_of(i, 3)) * pg_temp.quantity_of(i, 3) ELSE 0 END)::numeric AS amount
    FROM generate_series($2::bigint, $3::bigint) i
    OFFSET 0 -- evaluate each row's draws once, not once per reference above
  ) drawn
  OFFSET 0
) derived`;

/** The products of transactions i = $1..$2. */
export const INSERT_PRODUCTS_SQL = `
INSERT INTO "TransactionProduct" (id, "transactionId", position, name, price, quantity)
SELECT gen_random_uuid(), md5('bench:' || i)::uuid, j - 1,
  pg_temp.name_of(pg_temp.product_of(i, j)), pg_temp.price_of(pg_temp.product_of(i, j)), pg_temp.quantity_of(i, j)
FROM generate_series($1::bigint, $2::bigint) i, generate_series(1, pg_temp.product_count(i)) j`;

/**
 * Session settings for a bulk load: no JIT (its compile time exceeds what it saves on these
 * expressions), no wait for WAL flushes, and no per-row foreign-key triggers (the rows are
 * consistent by construction: every product's transaction is inserted first, in the same chunk).
 */
const BULK_SESSION_SQL = `SET jit = off; SET synchronous_commit = off; SET session_replication_role = replica;`;

/** Readies a session (as superuser: session_replication_role) for insertSeedChunk. */
export async function prepareSeedSession(client: pg.ClientBase): Promise<void> {
  await client.query(BULK_SESSION_SQL + SEED_FUNCTIONS_SQL);
}

/** One chunk: its transactions, then their products, committed together. */
export async function insertSeedChunk(client: pg.ClientBase, range: SeedRange): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(INSERT_TRANSACTIONS_SQL, range);
    await client.query(INSERT_PRODUCTS_SQL, [range[1], range[2]]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
