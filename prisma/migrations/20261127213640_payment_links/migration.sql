-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "paymentLinkId" UUID;

-- CreateTable
CREATE TABLE "PaymentLink" (
    "id" UUID NOT NULL,
    "organizationId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "products" JSONB NOT NULL,
    "methodOfPayment" "PaymentMethod"[],
    "singleUse" BOOLEAN NOT NULL DEFAULT false,
    "expiresAt" TIMESTAMPTZ(3),
    "successUrl" TEXT,
    "errorUrl" TEXT,
    "feesCustomerSide" BOOLEAN NOT NULL DEFAULT false,
    "deactivatedAt" TIMESTAMPTZ(3),
    "claimTransactionId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PaymentLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PaymentLink_claimTransactionId_key" ON "PaymentLink"("claimTransactionId");

-- CreateIndex
CREATE INDEX "PaymentLink_organizationId_createdAt_idx" ON "PaymentLink"("organizationId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Transaction_paymentLinkId_createdAt_idx" ON "Transaction"("paymentLinkId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "Transaction" ADD CONSTRAINT "Transaction_paymentLinkId_fkey" FOREIGN KEY ("paymentLinkId") REFERENCES "PaymentLink"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PaymentLink" ADD CONSTRAINT "PaymentLink_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PaymentLink" ADD CONSTRAINT "PaymentLink_claimTransactionId_fkey" FOREIGN KEY ("claimTransactionId") REFERENCES "Transaction"("id") ON DELETE SET NULL ON UPDATE CASCADE;
