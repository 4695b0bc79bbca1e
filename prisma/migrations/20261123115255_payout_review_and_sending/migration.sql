-- AlterTable
ALTER TABLE "Payout" ADD COLUMN     "sentAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "Payout_status_sentAt_idx" ON "Payout"("status", "sentAt");
