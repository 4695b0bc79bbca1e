-- Webhooks (issue 9): secrets stored encrypted, events carry an id, attempts keep the start of the answer.
-- No webhook could be registered before this migration, so the tables are empty and the new NOT NULL
-- columns need no default.

-- AlterTable
ALTER TABLE "Webhook" DROP COLUMN "secret",
ADD COLUMN     "encryptedSecret" TEXT NOT NULL;

-- AlterTable
ALTER TABLE "WebhookAttempt" ADD COLUMN     "response" TEXT;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "eventId" UUID NOT NULL,
ADD COLUMN     "redeliveryOf" UUID;

-- CreateIndex
CREATE INDEX "WebhookDelivery_transactionId_idx" ON "WebhookDelivery"("transactionId");
