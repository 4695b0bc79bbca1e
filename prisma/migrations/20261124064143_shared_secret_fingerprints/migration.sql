-- CreateTable
CREATE TABLE "SharedSecretFingerprint" (
    "name" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SharedSecretFingerprint_pkey" PRIMARY KEY ("name")
);
