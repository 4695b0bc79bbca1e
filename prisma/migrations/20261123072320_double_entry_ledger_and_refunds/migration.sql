-- CreateEnum
CREATE TYPE "GatewayAccount" AS ENUM ('provider_clearing_wave', 'provider_clearing_orange_money', 'fee_revenue', 'adjustments');

-- CreateEnum
CREATE TYPE "RefundStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- AlterEnum
ALTER TYPE "LedgerEntryKind" ADD VALUE 'refund_reversal';

-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN     "gatewayAccount" "GatewayAccount",
ADD COLUMN     "postingId" UUID NOT NULL,
ALTER COLUMN "accountId" DROP NOT NULL,
ALTER COLUMN "balanceAfter" DROP NOT NULL;

-- CreateTable
CREATE TABLE "Refund" (
    "id" UUID NOT NULL,
    "transactionId" UUID NOT NULL,
    "organizationId" UUID NOT NULL,
    "amount" BIGINT NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "status" "RefundStatus" NOT NULL DEFAULT 'pending',
    "providerReference" TEXT NOT NULL DEFAULT '',
    "failureReason" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Refund_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Refund_transactionId_key" ON "Refund"("transactionId");

-- CreateIndex
CREATE INDEX "Refund_status_updatedAt_idx" ON "Refund"("status", "updatedAt");

-- CreateIndex
CREATE INDEX "LedgerEntry_postingId_idx" ON "LedgerEntry"("postingId");

-- CreateIndex
CREATE INDEX "LedgerEntry_gatewayAccount_idx" ON "LedgerEntry"("gatewayAccount");

-- AddForeignKey
ALTER TABLE "Refund" ADD CONSTRAINT "Refund_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "Transaction"("id") ON DELETE CASCADE ON UPDATE CASCADE;
