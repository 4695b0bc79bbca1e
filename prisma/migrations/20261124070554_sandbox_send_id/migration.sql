-- AlterTable
ALTER TABLE "SandboxProviderCall" ADD COLUMN     "lastSendId" UUID;
