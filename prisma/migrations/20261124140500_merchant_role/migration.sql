-- CreateEnum
CREATE TYPE "MerchantRole" AS ENUM ('owner', 'developer', 'operations', 'viewer');
