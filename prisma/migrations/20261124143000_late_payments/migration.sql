-- Issue 21: payments a real provider confirmed after the gateway closed their attempt, recorded on the
-- order or returned to the payer (src/domain/payments/latePayments.ts).

-- CreateTable
CREATE TABLE "LatePayment" (
    "attemptId" UUID NOT NULL,
    "transactionId" UUID NOT NULL,
    "organizationId" UUID NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "amount" BIGINT NOT NULL,
    "providerReference" TEXT NOT NULL DEFAULT '',
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "returnReference" TEXT NOT NULL DEFAULT '',
    "providerChecks" INTEGER NOT NULL DEFAULT 0,
    "nextProviderCheckAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMPTZ(3),

    CONSTRAINT "LatePayment_pkey" PRIMARY KEY ("attemptId")
);

-- CreateIndex
CREATE INDEX "LatePayment_outcome_createdAt_idx" ON "LatePayment"("outcome", "createdAt");
