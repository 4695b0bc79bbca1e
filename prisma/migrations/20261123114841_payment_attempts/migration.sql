-- CreateEnum
CREATE TYPE "PaymentAttemptState" AS ENUM ('collecting', 'succeeded', 'failed', 'unconfirmed');

-- CreateTable
CREATE TABLE "PaymentAttempt" (
    "id" UUID NOT NULL,
    "transactionId" UUID NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "phone" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "fee" BIGINT NOT NULL,
    "state" "PaymentAttemptState" NOT NULL DEFAULT 'collecting',
    "providerReference" TEXT NOT NULL DEFAULT '',
    "reason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMPTZ(3),

    CONSTRAINT "PaymentAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PaymentAttempt_transactionId_state_idx" ON "PaymentAttempt"("transactionId", "state");

-- CreateIndex
CREATE INDEX "PaymentAttempt_state_createdAt_idx" ON "PaymentAttempt"("state", "createdAt");

-- AddForeignKey
ALTER TABLE "PaymentAttempt" ADD CONSTRAINT "PaymentAttempt_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "Transaction"("id") ON DELETE CASCADE ON UPDATE CASCADE;
