/**
 * Issue 29 item 2: every money write composes the ledger's one posting builder
 * (src/domain/ledger/store.ts ctesOfPosting), so no statement outside the ledger capability writes
 * ledger entries by hand. The builder alone may hold `INSERT INTO "LedgerEntry"`.
 *
 * The last two that did (a refund of a held transaction, whose escrow release and debit are two
 * postings over one merchant account in one statement, and a failed refund's reversal of both) now
 * compose it too (statementPostingsCtes): no file outside the ledger capability may name the table
 * in an INSERT.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statementPostingCtes } from '../../../src/domain/ledger/posting.js';

const SRC = join(import.meta.dirname, '../../../src');
const LEDGER = join(SRC, 'domain/ledger');
const HAND_WRITTEN = /INSERT\s+INTO\s+"?LedgerEntry"?/gi;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join(SRC, 'generated') ? [] : sourceFiles(path);
    return /\.(ts|tsx|js|mjs|sql)$/.test(entry.name) ? [path] : [];
  });
}

describe('ledger entries', () => {
  it('are written only by the ledger capability’s posting builder', () => {
    const handWritten: Record<string, number> = {};
    for (const file of sourceFiles(SRC)) {
      const count = readFileSync(file, 'utf8').match(HAND_WRITTEN)?.length ?? 0;
      if (count > 0 && !file.startsWith(`${LEDGER}/`)) handWritten[relative(SRC, file)] = count;
    }
    expect(handWritten).toEqual({});
  });

  it('the builder is the one place in the ledger capability that writes them', () => {
    const inLedger = sourceFiles(LEDGER).flatMap((file) =>
      Array.from({ length: readFileSync(file, 'utf8').match(HAND_WRITTEN)?.length ?? 0 }, () => relative(SRC, file)),
    );
    expect(inLedger).toEqual(['domain/ledger/store.ts']);
  });
});

describe('a posting whose amounts the statement reads', () => {
  const read = (column: string, sign: 1 | -1) => ({ cte: 'found', terms: [{ column, sign }] });
  const posting = (gatewayAmount: ReturnType<typeof read>) => ({
    as: 'moved',
    kind: 'refund' as const,
    description: 'test',
    movements: [
      { side: { organizationId: '00000000-0000-4000-8000-000000000001', account: 'main' as const }, amount: read('amount', -1) },
      { side: { gateway: { cte: 'found', column: 'clearing' } }, amount: gatewayAmount },
    ],
  });

  it('is checked balanced per column before it runs', () => {
    expect(() => statementPostingCtes(posting(read('fee', 1)))).toThrow(/unbalanced refund posting: entries sum to -1 x found.amount \+ 1 x found.fee/);
    expect(() => statementPostingCtes(posting(read('amount', -1)))).toThrow(/unbalanced/);
  });

  it('reads them in its text, not as values: one shape, one text, whatever the amounts', () => {
    const first = statementPostingCtes(posting(read('amount', 1)));
    const second = statementPostingCtes(posting(read('amount', 1)));
    expect(first.sql).toBe(second.sql);
    expect(first.sql).toContain('(SELECT -"amount" FROM "found")::bigint');
    expect(first.sql).toContain('(SELECT "clearing" FROM "found")::text::"GatewayAccount"');
  });
});
