-- Issue 29: PostgreSQL itself keeps the ledger balanced, whatever code (or a hand-typed statement) writes it.
-- Not modelled by Prisma (it models neither triggers nor CHECK constraints), so written by hand:
-- `npm run migrate:new` finds no difference in schema.prisma to write.

-- A merchant account (`main`, `escrow`) never holds less than nothing: every movement already is a
-- conditional UPDATE (`balance + amount >= 0`, src/domain/ledger/store.ts), and this refuses any
-- other. Nothing is exempted: `escrow` holds a merchant's captured payments and cannot go below zero
-- either. The gateway's own accounts (provider clearing, fee revenue, adjustments), which do go below
-- zero (clearing is what a provider owes us minus what we owe it), have no balance row at all: their
-- balances are the sums of their entries ("LedgerEntry"."gatewayAccount"), so no row of theirs is
-- checked here. (CHECK constraints and constraint triggers are read by the schema engine only through
-- src/infra/prisma/migrate.ts withCharConstraintTypes: without it the drift check panics.)
ALTER TABLE "Account" ADD CONSTRAINT "Account_balance_not_negative" CHECK ("balance" >= 0);

-- Every posting's entries sum to zero, checked at COMMIT (a posting's entries may be written by
-- several statements of one transaction). Row by row: a constraint trigger cannot be per statement,
-- each check is one scan of the posting's entries by "LedgerEntry_postingId_idx" (measured with
-- pgbench, 3-entry postings inserted alone, no commit flush: ~25 us per entry, 4,700 -> 3,450
-- postings/s on the loaded 2-core machine, where a gateway request costs far more). A refusal is
-- check_violation (23514), naming the posting and its sum.
-- The body is an escape string with \073 for each semicolon: the migration runner (Prisma's pg
-- adapter, executeScript) cuts a script at every semicolon, even inside a function body or a
-- comment: no comment here has one.
CREATE FUNCTION "ledger_posting_balanced"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  total numeric\073
BEGIN
  SELECT COALESCE(SUM(amount), 0) INTO total FROM "LedgerEntry" WHERE "postingId" = NEW."postingId"\073
  IF total <> 0 THEN
    RAISE EXCEPTION ''unbalanced ledger posting %: its entries sum to %'', NEW."postingId", total
      USING ERRCODE = ''check_violation'', CONSTRAINT = ''LedgerEntry_posting_balanced''\073
  END IF\073
  RETURN NULL\073
END
';

CREATE CONSTRAINT TRIGGER "LedgerEntry_posting_balanced" AFTER INSERT OR UPDATE OF "postingId", "amount" ON "LedgerEntry"
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "ledger_posting_balanced"();
