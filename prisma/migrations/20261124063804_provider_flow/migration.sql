-- AlterTable
ALTER TABLE "PaymentAttempt" ADD COLUMN     "nextProviderCheckAt" TIMESTAMPTZ(3),
ADD COLUMN     "providerChecks" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Payout" ADD COLUMN     "nextProviderCheckAt" TIMESTAMPTZ(3),
ADD COLUMN     "providerChecks" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Refund" ADD COLUMN     "nextProviderCheckAt" TIMESTAMPTZ(3),
ADD COLUMN     "providerChecks" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "PayoutLease" (
    "organizationId" UUID NOT NULL,
    "holder" UUID NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PayoutLease_pkey" PRIMARY KEY ("organizationId")
);

-- CreateTable
CREATE TABLE "SandboxProviderCall" (
    "kind" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "phone" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "status" TEXT NOT NULL,
    "providerReference" TEXT NOT NULL DEFAULT '',
    "reason" TEXT,
    "calls" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxProviderCall_pkey" PRIMARY KEY ("kind","reference")
);
