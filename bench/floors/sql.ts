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
