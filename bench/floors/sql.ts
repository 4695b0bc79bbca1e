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

/** list: the total for the pagination block (run alongside the page, on another connection). */
export const LIST_COUNT = {
  name: 'floor-list-count',
  text: `SELECT count(*)::int AS total FROM "Transaction" t WHERE ${LIST_FILTER}`,
};

/** create: who is calling and what they may use (the gateway checks the same before inserting). */
export const KEY_FOR_CREATE = {
  name: 'floor-key-for-create',
  text: `SELECT k."organizationId", k.scope::text AS scope, o.status::text AS status, o."allowedMethods"::text[] AS "allowedMethods"
         FROM "ApiKey" k JOIN "Organization" o ON o.id = k."organizationId"
         WHERE k."keyDigest" = $1 AND k."revokedAt" IS NULL`,
};

/** create: the transaction row (inside BEGIN ... COMMIT with its products). */
export const INSERT_TRANSACTION = {
  name: 'floor-insert-transaction',
  text: `INSERT INTO "Transaction" (id, "organizationId", amount, "methodOfPayment", "customerFirstName", "customerLastName",
           "customerPhone", "successUrl", "errorUrl", "updatedAt")
         VALUES ($1::uuid, $2::uuid, $3::bigint, $4::"PaymentMethod"[], $5, $6, $7, $8, $9, now())
         RETURNING "createdAt"`,
};

/** create: every product in one statement (arrays of names, prices, quantities; position = order). */
export const INSERT_PRODUCTS = {
  name: 'floor-insert-products',
  text: `INSERT INTO "TransactionProduct" (id, "transactionId", position, name, price, quantity, description)
         SELECT gen_random_uuid(), $1::uuid, (p.ord - 1)::int, p.name, p.price, p.quantity, p.description
         FROM unnest($2::text[], $3::bigint[], $4::int[], $5::text[]) WITH ORDINALITY AS p(name, price, quantity, description, ord)`,
};

// Money in: a payment (the checkout form's POST) and a refund, each with the statements the
// operation needs around the wallet call: the intent written before the call (so a concurrent
// request cannot call the wallet a second time), then the outcome with its balanced ledger
// entries. The wallet call itself is the sandbox's: no I/O.

/** pay: the pending transaction and its fee rate. $1 = order id. */
export const PAY_READ = {
  name: 'floor-pay-read',
  text: `SELECT t.amount, t."feesCustomerSide", o."feeWaveBp"
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

/** Moves a merchant account's balance, never below zero. $1 organisation, $2 signed amount. */
export const MOVE_MAIN = {
  name: 'floor-move-main',
  text: `UPDATE "Account" SET balance = balance + $2::bigint, "updatedAt" = now()
         WHERE "organizationId" = $1::uuid AND name = 'main' AND balance + $2::bigint >= 0 RETURNING id, balance`,
};

/**
 * A balanced posting's entries in one statement: the merchant's `main` entry and the gateway's.
 * $1 posting id, $2 kind, $3 order, $4 main account id, $5 main amount, $6 main balance after,
 * $7 gateway accounts, $8 their amounts.
 */
export const INSERT_POSTING = {
  name: 'floor-insert-posting',
  text: `INSERT INTO "LedgerEntry" (id, "postingId", "accountId", "gatewayAccount", kind, amount, "balanceAfter", "transactionId")
         SELECT gen_random_uuid(), $1::uuid, NULL, g.account, $2::"LedgerEntryKind", g.amount, NULL, $3::uuid
         FROM unnest($7::"GatewayAccount"[], $8::bigint[]) AS g(account, amount)
         UNION ALL SELECT gen_random_uuid(), $1::uuid, $4::uuid, NULL, $2::"LedgerEntryKind", $5::bigint, $6::bigint, $3::uuid`,
};

/** refund, first transaction: the caller's paid transaction, locked. $1 key digest, $2 order id. */
export const REFUND_LOCK = {
  name: 'floor-refund-lock',
  text: `SELECT t.id, t.amount, t."organizationId", t."payerPhone" FROM "Transaction" t
         WHERE t.id = $2::uuid AND t."organizationId" = (${ORGANIZATION_OF_KEY}) AND t.status = 'paid' FOR UPDATE`,
};

/** refund: the Refund row (one per transaction). $1 id, $2 order, $3 organisation, $4 amount. */
export const REFUND_RECORD = {
  name: 'floor-refund-record',
  text: `INSERT INTO "Refund" (id, "transactionId", "organizationId", amount, method, "updatedAt")
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4::bigint, 'wave', now()) ON CONFLICT ("transactionId") DO NOTHING`,
};

/** refund, second transaction: the provider said yes. $1 refund id, $2 provider reference. */
export const REFUND_SETTLE = {
  name: 'floor-refund-settle',
  text: `UPDATE "Refund" SET status = 'succeeded', "providerReference" = $2, "updatedAt" = now() WHERE id = $1::uuid AND status = 'pending'`,
};

/** refund: paid -> refunded, returning the transaction as the answer. $1 order id. */
export const REFUND_MARK_REFUNDED = {
  name: 'floor-refund-mark-refunded',
  text: `UPDATE "Transaction" t SET status = 'refunded', "refundedAt" = now(), "updatedAt" = now()
         WHERE t.id = $1::uuid AND t.status = 'paid' RETURNING ${TRANSACTION_COLUMNS}`,
};

/** payout: who is calling, if their organisation may pay out, and its fee rate. $1 key digest. */
export const PAYOUT_CALLER = {
  name: 'floor-payout-caller',
  text: `SELECT o.id AS "organizationId", o."payoutEnabled", o."feePayoutBp" FROM "ApiKey" k JOIN "Organization" o ON o.id = k."organizationId"
         WHERE k."keyDigest" = $1 AND k."revokedAt" IS NULL AND o.status = 'active'`,
};

/** payout: the row, `pending` and sent. $1 id, $2 organisation, $3 method, $4 amount, $5 fee, $6 phone, $7 first, $8 last, $9 reason. */
export const PAYOUT_RECORD = {
  name: 'floor-payout-record',
  text: `INSERT INTO "Payout" (id, "organizationId", "selectedPaymentMethod", amount, fees, "recipientPhone", "recipientFirstName", "recipientLastName", reason, "sentAt", "updatedAt")
         VALUES ($1::uuid, $2::uuid, $3::"PaymentMethod", $4::bigint, $5::bigint, $6, $7, $8, $9, now(), now())`,
};

/** payout: the provider said yes. $1 id, $2 provider reference. */
export const PAYOUT_SETTLE = {
  name: 'floor-payout-settle',
  text: `UPDATE "Payout" SET status = 'completed', "providerReference" = $2, "paidAt" = now(), "updatedAt" = now()
         WHERE id = $1::uuid AND status = 'pending'
         RETURNING id, "organizationId", "selectedPaymentMethod", amount, fees, currency, "recipientFirstName", "recipientLastName",
           "recipientPhone", status, reason, "createdAt", "updatedAt"`,
};
