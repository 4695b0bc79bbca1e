-- CreateTable
CREATE TABLE "ProviderHealthReport" (
    "instanceId" UUID NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "provider" TEXT NOT NULL,
    "healthy" BOOLEAN NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "since" TIMESTAMPTZ(3),
    "lastAnsweredAt" TIMESTAMPTZ(3),
    "lastFailedAt" TIMESTAMPTZ(3),
    "reportedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ProviderHealthReport_pkey" PRIMARY KEY ("instanceId","method")
);

-- CreateIndex
CREATE INDEX "ProviderHealthReport_method_reportedAt_idx" ON "ProviderHealthReport"("method", "reportedAt");
