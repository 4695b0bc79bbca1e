/**
 * The database floors: the least SQL each operation needs, as named (prepared) statements. The
 * key digest is resolved inside the statement that reads, so a read is one round trip.
 */

/** A transaction's columns and its products, as one row; `t` is "Transaction". */
const TRANSACTION_COLUMNS = `
  t.id, t.amount, t.fees, t."methodOfPayment"::text[] AS "methodOfPayment", t."selectedPaymentMethod", t.currency,
  t.status, t."customerFirstName", t."customerLastName", t."customerPhone", t."isEscrow", t."isMerchant",
  t."feesCustomerSide", t."successUrl", t."errorUrl", t."createdAt", t."updatedAt", t."paidAt",
  COALESCE((SELECT json_agg(json_build_object('name', p.name, 'price', p.price, 'quantity', p.quantity, 'description', p.description)
                            ORDER BY p.position)
            FROM "TransactionProduct" p WHERE p."transactionId" = t.id), '[]'::json) AS products`;

/** The organisation of a live key of a non-blocked organisation ($1 = the key's SHA-256 hex). */
const ORGANIZATION_OF_KEY = `
  SELECT k."organizationId" FROM "ApiKey" k JOIN "Organization" o ON o.id = k."organizationId"
  WHERE k."keyDigest" = $1 AND k."revokedAt" IS NULL AND o.status <> 'blocked'`;

/** get: key digest -> organisation -> transaction with its products, ONE statement. */
export const GET_TRANSACTION = {
  name: 'floor-get-transaction',
  text: `SELECT ${TRANSACTION_COLUMNS} FROM "Transaction" t
         WHERE t.id = $2::uuid AND t."organizationId" = (${ORGANIZATION_OF_KEY})`,
};

/** The list filters the bench sends (status + paid method + created_at range), as the gateway applies them. */
const LIST_FILTER = `
  t."organizationId" = (${ORGANIZATION_OF_KEY}) AND t."isDeleted" = false
  AND t.status = $2::"TransactionStatus" AND t."selectedPaymentMethod" = $3::"PaymentMethod"
  AND t."createdAt" >= $4::timestamptz AND t."createdAt" <= $5::timestamptz`;

/**
 * list: one page, newest first, with products ($6 limit, $7 offset). The page is cut in a
 * subquery first: products are aggregated for its rows only, not for every row OFFSET skips.
 */
export const LIST_PAGE = {
  name: 'floor-list-page',
  text: `SELECT ${TRANSACTION_COLUMNS}
         FROM (SELECT * FROM "Transaction" t WHERE ${LIST_FILTER} ORDER BY t."createdAt" DESC, t.id DESC LIMIT $6 OFFSET $7) t
         ORDER BY t."createdAt" DESC, t.id DESC`,
};

/**
 * list: the total for the pagination block (run alongside the page, on another connection).
 * Counted over an OFFSET 0 subquery, as the gateway counts: the planner then keeps the covering
 * index's index-only scan instead of a parallel sequential scan (the plain count made this floor
 * slower than the gateway on the deep page: ratio 1.36).
 */
export const LIST_COUNT = {
  name: 'floor-list-count',
  text: `SELECT count(*)::int AS total FROM (SELECT 1 FROM "Transaction" t WHERE ${LIST_FILTER} OFFSET 0) matching`,
};

/** create: who is calling and what they may use (the gateway checks the same before inserting). */
export const KEY_FOR_CREATE = {
  name: 'floor-key-for-create',
  text: `SELECT k."organizationId", k.scope::text AS scope, o.status::text AS status, o."allowedMethods"::text[] AS "allowedMethods"
         FROM "ApiKey" k JOIN "Organization" o ON o.id = k."organizationId"
         WHERE k."keyDigest" = $1 AND k."revokedAt" IS NULL`,
};

/**
 * create: the transaction row and every product in ONE statement (arrays of names, prices,
 * quantities, descriptions; position = order), returning the creation time. No transaction: one
 * statement is atomic. $1 id, $2 organisation, $3 amount, $4 methods, $5-$7 customer, $8-$9 URLs.
 */
export const INSERT_TRANSACTION = {
  name: 'floor-insert-transaction',
  text: `WITH t AS (
           INSERT INTO "Transaction" (id, "organizationId", amount, "methodOfPayment", "customerFirstName", "customerLastName",
             "customerPhone", "successUrl", "errorUrl", "updatedAt")
           VALUES ($1::uuid, $2::uuid, $3::bigint, $4::"PaymentMethod"[], $5, $6, $7, $8, $9, now())
           RETURNING id, "createdAt"),
         products AS (
           INSERT INTO "TransactionProduct" (id, "transactionId", position, name, price, quantity, description)
           SELECT gen_random_uuid(), t.id, (p.ord - 1)::int, p.name, p.price, p.quantity, p.description
           FROM t, unnest($10::text[], $11::bigint[], $12::int[], $13::text[]) WITH ORDINALITY AS p(name, price, quantity, description, ord))
         SELECT "createdAt" FROM t`,
};

// Money in: a payment (the checkout form's POST) and a refund, each with the statements the
// operation needs around the wallet call: the intent written before the call (so a concurrent
// request cannot call the wallet a second time), then the outcome with its balanced ledger
// entries. The wallet call itself is the sandbox's: no I/O.

/** pay: the pending transaction and its fee rate. $1 = order id. */
export const PAY_READ = {
  name: 'floor-pay-read',
  text: `SELECT t.amount, t."feesCustomerSide", o."collectionFeesBp"
         FROM "Transaction" t JOIN "Organization" o ON o.id = t."organizationId"
         WHERE t.id = $1::uuid AND t.status = 'pending'`,
};

/** pay: the claim (only while pending and unclaimed) and the attempt, one statement. $1 attempt id, $2 order, $3 phone, $4 charged, $5 fee. */
export const PAY_CLAIM = {
  name: 'floor-pay-claim',
  text: `WITH claimed AS (
           UPDATE "Transaction" SET "collectingAttemptId" = $1::uuid
           WHERE id = $2::uuid AND status = 'pending' AND "collectingAttemptId" IS NULL RETURNING id)
         INSERT INTO "PaymentAttempt" (id, "transactionId", method, phone, amount, fee)
         SELECT $1::uuid, id, 'wave', $3, $4::bigint, $5::bigint FROM claimed RETURNING id`,
};

/**
 * pay: the outcome, one statement: the attempt closed, the transaction paid and its claim
 * released, main credited with its entry and the gateway's two. $1 attempt id, $2 order,
 * $3 fee, $4 phone, $5 proceeds, $6 charged (negative), $7 provider reference.
 */
export const PAY_SETTLE = {
  name: 'floor-pay-settle',
  text: `WITH closed AS (
           UPDATE "PaymentAttempt" SET state = 'succeeded', "providerReference" = $7, "settledAt" = now()
           WHERE id = $1::uuid AND state = 'collecting' RETURNING id),
         paid AS (
           UPDATE "Transaction" t SET status = 'paid', "selectedPaymentMethod" = 'wave', fees = $3::bigint, "paidAt" = now(),
             "payerPhone" = $4, "updatedAt" = now(), "collectingAttemptId" = NULL
           FROM closed WHERE t.id = $2::uuid AND t."collectingAttemptId" = closed.id RETURNING t."organizationId"),
         credited AS (
           UPDATE "Account" a SET balance = a.balance + $5::bigint, "updatedAt" = now()
           FROM paid WHERE a."organizationId" = paid."organizationId" AND a.name = 'main' RETURNING a.id, a.balance),
         posting AS (SELECT gen_random_uuid() AS id)
         INSERT INTO "LedgerEntry" (id, "postingId", "accountId", "gatewayAccount", kind, amount, "balanceAfter", "transactionId")
         SELECT gen_random_uuid(), posting.id, c.id, NULL::"GatewayAccount", 'payment'::"LedgerEntryKind", $5::bigint, c.balance, $2::uuid FROM credited c, posting
         UNION ALL
         SELECT gen_random_uuid(), posting.id, NULL, g.account::"GatewayAccount", 'payment'::"LedgerEntryKind", g.amount, NULL, $2::uuid
         FROM credited c, posting, (VALUES ('provider_clearing_wave', $6::bigint), ('fee_revenue', $3::bigint)) AS g(account, amount)`,
};

/**
 * refund, before the wallet: the caller's paid transaction locked, `main` debited (never below
 * zero), the balanced entries and the Refund row, in ONE statement; nothing when it is not
 * refundable or main is short. $1 key digest, $2 order id, $3 refund id, $4 posting id.
 */
export const REFUND_RECORD = {
  name: 'floor-refund-record',
  text: `WITH target AS (
           SELECT t.id, t.amount, t."organizationId" FROM "Transaction" t
           WHERE t.id = $2::uuid AND t."organizationId" = (${ORGANIZATION_OF_KEY}) AND t.status = 'paid' FOR UPDATE),
         debited AS (
           UPDATE "Account" a SET balance = a.balance - target.amount, "updatedAt" = now() FROM target
           WHERE a."organizationId" = target."organizationId" AND a.name = 'main' AND a.balance - target.amount >= 0
           RETURNING a.id, a.balance, target.id AS "transactionId", target.amount, target."organizationId"),
         entries AS (
           INSERT INTO "LedgerEntry" (id, "postingId", "accountId", "gatewayAccount", kind, amount, "balanceAfter", "transactionId")
           SELECT gen_random_uuid(), $4::uuid, d.id, NULL::"GatewayAccount", 'refund'::"LedgerEntryKind", -d.amount, d.balance, d."transactionId" FROM debited d
           UNION ALL SELECT gen_random_uuid(), $4::uuid, NULL, 'provider_clearing_wave'::"GatewayAccount", 'refund'::"LedgerEntryKind", d.amount, NULL, d."transactionId" FROM debited d)
         INSERT INTO "Refund" (id, "transactionId", "organizationId", amount, method, "updatedAt")
         SELECT $3::uuid, d."transactionId", d."organizationId", d.amount, 'wave'::"PaymentMethod", now() FROM debited d
         RETURNING id`,
};

/** refund, after the wallet said yes: the Refund succeeded and the transaction refunded, returned as the answer. $1 refund id, $2 provider reference. */
export const REFUND_SETTLE = {
  name: 'floor-refund-settle',
  text: `WITH settled AS (
           UPDATE "Refund" SET status = 'succeeded', "providerReference" = $2, "updatedAt" = now()
           WHERE id = $1::uuid AND status = 'pending' RETURNING "transactionId")
         UPDATE "Transaction" t SET status = 'refunded', "refundedAt" = now(), "updatedAt" = now()
         FROM settled WHERE t.id = settled."transactionId" AND t.status = 'paid' RETURNING ${TRANSACTION_COLUMNS}`,
};

/** payout: who is calling, if their organisation may pay out, and its fee rate. $1 key digest. */
export const PAYOUT_CALLER = {
  name: 'floor-payout-caller',
  text: `SELECT o.id AS "organizationId", o."payoutEnabled", o."feePayoutBp" FROM "ApiKey" k JOIN "Organization" o ON o.id = k."organizationId"
         WHERE k."keyDigest" = $1 AND k."revokedAt" IS NULL AND o.status = 'active'`,
};

/**
 * payout, before the wallet: `main` debited by amount + fee (never below zero), the balanced
 * entries and the Payout row `pending` and sent, in ONE statement; nothing when main is short.
 * $1 id, $2 organisation, $3 method, $4 amount, $5 fee, $6 phone, $7 first, $8 last, $9 reason,
 * $10 posting id, $11 the method's clearing account.
 */
export const PAYOUT_RECORD = {
  name: 'floor-payout-record',
  text: `WITH debited AS (
           UPDATE "Account" SET balance = balance - ($4::bigint + $5::bigint), "updatedAt" = now()
           WHERE "organizationId" = $2::uuid AND name = 'main' AND balance - ($4::bigint + $5::bigint) >= 0
           RETURNING id, balance),
         payout AS (
           INSERT INTO "Payout" (id, "organizationId", "selectedPaymentMethod", amount, fees, "recipientPhone", "recipientFirstName", "recipientLastName", reason, "sentAt", "updatedAt")
           SELECT $1::uuid, $2::uuid, $3::"PaymentMethod", $4::bigint, $5::bigint, $6, $7, $8, $9, now(), now() FROM debited
           RETURNING id)
         INSERT INTO "LedgerEntry" (id, "postingId", "accountId", "gatewayAccount", kind, amount, "balanceAfter", "payoutId")
         SELECT gen_random_uuid(), $10::uuid, d.id, NULL::"GatewayAccount", 'payout'::"LedgerEntryKind", -($4::bigint + $5::bigint), d.balance, $1::uuid FROM debited d
         UNION ALL SELECT gen_random_uuid(), $10::uuid, NULL, g.account::"GatewayAccount", 'payout'::"LedgerEntryKind", g.amount, NULL, $1::uuid
         FROM debited, (VALUES ($11::text, $4::bigint), ('fee_revenue', $5::bigint)) AS g(account, amount)
         RETURNING "payoutId"`,
};

/** payout: the provider said yes. $1 id, $2 provider reference. */
export const PAYOUT_SETTLE = {
  name: 'floor-payout-settle',
  text: `UPDATE "Payout" SET status = 'completed', "providerReference" = $2, "paidAt" = now(), "updatedAt" = now()
         WHERE id = $1::uuid AND status = 'pending'
         RETURNING id, "organizationId", "selectedPaymentMethod", amount, fees, currency, "recipientFirstName", "recipientLastName",
           "recipientPhone", status, reason, "createdAt", "updatedAt"`,
};
