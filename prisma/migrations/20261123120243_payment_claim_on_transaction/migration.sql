-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "collectingAttemptId" UUID;
