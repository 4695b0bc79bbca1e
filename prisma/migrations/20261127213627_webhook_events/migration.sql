-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "events" TEXT[] DEFAULT ARRAY['payment_status']::TEXT[];
