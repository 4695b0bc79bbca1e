-- Collection fee rates keyed by payment method instead of one column per method: a new method is a
-- catalogue row (with its default rate) and a provider, not a column. Each organisation keeps the
-- rates it had, written out explicitly.
ALTER TABLE "Organization" ADD COLUMN "collectionFeesBp" JSONB NOT NULL DEFAULT '{}';

UPDATE "Organization" SET "collectionFeesBp" = jsonb_build_object('wave', "feeWaveBp", 'orange_money', "feeOrangeMoneyBp");

ALTER TABLE "Organization" DROP COLUMN "feeWaveBp",
DROP COLUMN "feeOrangeMoneyBp";
