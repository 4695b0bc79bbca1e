-- CreateTable
CREATE TABLE "TransactionStatsDay" (
    "id" BIGSERIAL NOT NULL,
    "organizationId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "method" "PaymentMethod",
    "status" "TransactionStatus" NOT NULL,
    "count" INTEGER NOT NULL,
    "amount" BIGINT NOT NULL,
    "fees" BIGINT NOT NULL,

    CONSTRAINT "TransactionStatsDay_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TransactionStatsChange" (
    "id" BIGSERIAL NOT NULL,
    "organizationId" UUID NOT NULL,
    "day" DATE NOT NULL,

    CONSTRAINT "TransactionStatsChange_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AnalyticsRollup" (
    "name" TEXT NOT NULL,
    "builtAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AnalyticsRollup_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "TransactionStatsDay_organizationId_day_idx" ON "TransactionStatsDay"("organizationId", "day");

-- CreateIndex
CREATE INDEX "TransactionStatsDay_day_idx" ON "TransactionStatsDay"("day");

-- CreateIndex
CREATE INDEX "Transaction_createdAt_idx" ON "Transaction"("createdAt");

-- CreateIndex
CREATE INDEX "Payout_createdAt_idx" ON "Payout"("createdAt");

-- Keeping TransactionStatsDay exact (not modelled by Prisma): every insert, delete, and update of a
-- column the rollup sums or groups by appends the (organisation, UTC day) it touched. An append
-- never waits on another writer (no unique key to check), so concurrent payments of one merchant
-- do not queue behind each other. The refresh (domain/analytics/store.ts) consumes the rows.
-- The body is an escape string with \073 for each semicolon: the migration runner (Prisma's pg
-- adapter, executeScript) cuts a script at every semicolon, even inside a function body.
CREATE FUNCTION "transaction_stats_changed"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP <> ''INSERT'' THEN
    INSERT INTO "TransactionStatsChange" ("organizationId", "day")
    VALUES (OLD."organizationId", (OLD."createdAt" AT TIME ZONE ''UTC'')::date)\073
  END IF\073
  IF TG_OP = ''INSERT'' OR (TG_OP = ''UPDATE'' AND (NEW."organizationId" <> OLD."organizationId"
      OR (NEW."createdAt" AT TIME ZONE ''UTC'')::date <> (OLD."createdAt" AT TIME ZONE ''UTC'')::date)) THEN
    INSERT INTO "TransactionStatsChange" ("organizationId", "day")
    VALUES (NEW."organizationId", (NEW."createdAt" AT TIME ZONE ''UTC'')::date)\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER "Transaction_stats_insert_delete" AFTER INSERT OR DELETE ON "Transaction"
  FOR EACH ROW EXECUTE FUNCTION "transaction_stats_changed"();

CREATE TRIGGER "Transaction_stats_update"
  AFTER UPDATE OF "status", "selectedPaymentMethod", "amount", "fees", "createdAt", "organizationId" ON "Transaction"
  FOR EACH ROW
  WHEN (OLD."status" IS DISTINCT FROM NEW."status"
     OR OLD."selectedPaymentMethod" IS DISTINCT FROM NEW."selectedPaymentMethod"
     OR OLD."amount" <> NEW."amount" OR OLD."fees" <> NEW."fees"
     OR OLD."createdAt" <> NEW."createdAt" OR OLD."organizationId" <> NEW."organizationId")
  EXECUTE FUNCTION "transaction_stats_changed"();
