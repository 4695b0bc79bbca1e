-- The delivery log shows each attempt's X-Signature header as sent (the merchant checks its
-- receiver against it). A secret rotated between attempts changes it, so it is kept per attempt.
ALTER TABLE "WebhookAttempt" ADD COLUMN "signature" TEXT;
