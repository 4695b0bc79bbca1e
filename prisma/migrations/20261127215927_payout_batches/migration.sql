-- CreateEnum
CREATE TYPE "PayoutBatchStatus" AS ENUM ('draft', 'running', 'completed', 'completed_with_failures', 'cancelled');

-- CreateEnum
CREATE TYPE "PayoutBatchItemState" AS ENUM ('queued', 'processing', 'done', 'cancelled');

-- CreateTable
CREATE TABLE "PayoutBatch" (
    "id" UUID NOT NULL,
    "organizationId" UUID NOT NULL,
    "status" "PayoutBatchStatus" NOT NULL DEFAULT 'draft',
    "itemCount" INTEGER NOT NULL,
    "validCount" INTEGER NOT NULL,
    "totalAmount" BIGINT NOT NULL,
    "totalFees" BIGINT NOT NULL,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "startedBy" JSONB,
    "runnerId" UUID,
    "runnerLeaseUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "PayoutBatch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PayoutBatchItem" (
    "batchId" UUID NOT NULL,
    "line" INTEGER NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "amount" BIGINT NOT NULL,
    "fee" BIGINT NOT NULL,
    "recipientFirstName" TEXT,
    "recipientLastName" TEXT,
    "recipientPhone" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "reference" TEXT,
    "state" "PayoutBatchItemState" NOT NULL DEFAULT 'queued',
    "payoutId" UUID,
    "failureReason" TEXT,
    "claimedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PayoutBatchItem_pkey" PRIMARY KEY ("batchId","line")
);

-- CreateIndex
CREATE INDEX "PayoutBatch_organizationId_createdAt_idx" ON "PayoutBatch"("organizationId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "PayoutBatch_status_runnerLeaseUntil_idx" ON "PayoutBatch"("status", "runnerLeaseUntil");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutBatchItem_payoutId_key" ON "PayoutBatchItem"("payoutId");

-- CreateIndex
CREATE INDEX "PayoutBatchItem_batchId_state_line_idx" ON "PayoutBatchItem"("batchId", "state", "line");

-- AddForeignKey
ALTER TABLE "PayoutBatch" ADD CONSTRAINT "PayoutBatch_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PayoutBatchItem" ADD CONSTRAINT "PayoutBatchItem_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "PayoutBatch"("id") ON DELETE CASCADE ON UPDATE CASCADE;
