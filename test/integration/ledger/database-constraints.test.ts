/**
 * The ledger's invariants held by the database itself, not by the code: statements typed by hand
 * (bypassing src/domain/ledger) that would unbalance a posting or take a merchant account below
 * zero are refused by PostgreSQL, and by the embedded database (PGlite) the same way. A posting
 * written in several statements of one transaction is checked at COMMIT, so only its final state
 * counts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/domain/ports.js';
import { useGateway } from '../../support/gateway.js';
import { balanceOf, expectBalancedLedger } from '../../support/ledger.js';

/** The SQLSTATE of an error Prisma surfaced from a raw statement or a commit (the driver adapter's `cause`). */
const sqlStateOf = (error: unknown): string | undefined => {
  const failure = error as { code?: unknown; cause?: { code?: unknown }; meta?: { driverAdapterError?: { cause?: { code?: unknown } } } };
  const code = failure.cause?.code ?? failure.meta?.driverAdapterError?.cause?.code ?? failure.code;
  return typeof code === 'string' ? code : undefined;
};

async function refusal(run: () => Promise<unknown>): Promise<{ code: string | undefined; message: string }> {
  try {
    await run();
  } catch (error) {
    return { code: sqlStateOf(error), message: String((error as Error).message) };
  }
  throw new Error('the database accepted what it must refuse');
}

const entry = (postingId: string, amount: number, side: { accountId: string } | { gateway: string }) =>
  'accountId' in side
    ? { id: randomUUID(), postingId, kind: 'adjustment' as const, amount: BigInt(amount), accountId: side.accountId, description: 'typed by hand' }
    : {
        id: randomUUID(),
        postingId,
        kind: 'adjustment' as const,
        amount: BigInt(amount),
        gatewayAccount: side.gateway as 'adjustments',
        description: 'typed by hand',
      };

function constraintsHold(options: { embedded: boolean }) {
  const gateway = useGateway(options);
  const db = (): Db => gateway.db.prisma;

  it('refuses at COMMIT a posting whose entries do not sum to zero, and keeps nothing of it', async () => {
    const postingId = randomUUID();
    const refused = await refusal(() =>
      db().$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO "LedgerEntry" (id, "postingId", kind, "gatewayAccount", amount, description)
          VALUES (${randomUUID()}::uuid, ${postingId}::uuid, 'adjustment', 'adjustments', 700, 'typed by hand')`;
        await tx.$executeRaw`INSERT INTO "LedgerEntry" (id, "postingId", kind, "gatewayAccount", amount, description)
          VALUES (${randomUUID()}::uuid, ${postingId}::uuid, 'adjustment', 'fee_revenue', -699, 'typed by hand')`;
      }),
    );
    expect(refused.code).toBe('23514');
    expect(refused.message).toContain(`unbalanced ledger posting ${postingId}: its entries sum to 1`);
    expect(await db().ledgerEntry.count({ where: { postingId } })).toBe(0);
  });

  it('refuses a lone unbalanced entry written outside any transaction (its statement is its transaction)', async () => {
    const postingId = randomUUID();
    const refused = await refusal(
      () => db().$executeRaw`INSERT INTO "LedgerEntry" (id, "postingId", kind, "gatewayAccount", amount, description)
        VALUES (${randomUUID()}::uuid, ${postingId}::uuid, 'adjustment', 'adjustments', -5, 'typed by hand')`,
    );
    expect(refused.code).toBe('23514');
    expect(await db().ledgerEntry.count({ where: { postingId } })).toBe(0);
  });

  it('refuses an entry changed afterwards so that its posting no longer balances', async () => {
    const organization = await gateway.createOrganization();
    const main = await db().account.findUniqueOrThrow({ where: { organizationId_name: { organizationId: organization.id, name: 'main' } } });
    const postingId = randomUUID();
    await db().$transaction(async (tx) => {
      await tx.$executeRaw`UPDATE "Account" SET balance = balance + 300 WHERE id = ${main.id}::uuid`;
      await tx.ledgerEntry.createMany({ data: [entry(postingId, 300, { accountId: main.id }), entry(postingId, -300, { gateway: 'adjustments' })] });
    });
    const refused = await refusal(() => db().$executeRaw`UPDATE "LedgerEntry" SET amount = 30 WHERE "postingId" = ${postingId}::uuid AND amount = 300`);
    expect(refused.code).toBe('23514');
    await expectBalancedLedger(db());
  });

  it('checks at COMMIT, not per statement: a posting balanced by its last statement commits', async () => {
    const postingId = randomUUID();
    await db().$transaction(async (tx) => {
      await tx.ledgerEntry.create({ data: entry(postingId, 250, { gateway: 'adjustments' }) });
      await tx.ledgerEntry.create({ data: entry(postingId, -250, { gateway: 'fee_revenue' }) });
    });
    expect(await db().ledgerEntry.count({ where: { postingId } })).toBe(2);
  });

  it('refuses a merchant balance below zero, whoever writes it (main and escrow alike)', async () => {
    const organization = await gateway.createOrganization();
    for (const name of ['main', 'escrow'] as const) {
      const refused = await refusal(
        () => db().$executeRaw`UPDATE "Account" SET balance = balance - 1 WHERE "organizationId" = ${organization.id}::uuid AND name = ${name}::"AccountName"`,
      );
      expect(refused.code, name).toBe('23514');
      expect(refused.message).toContain('Account_balance_not_negative');
      expect(await balanceOf(db(), organization.id, name)).toBe(0n);
    }
    // PostgreSQL checks a CHECK before the unique (organisation, name) index: the balance is what is refused.
    const created = await refusal(() => db().account.create({ data: { organizationId: organization.id, name: 'main', type: 'operating', balance: -10n } }));
    expect(created.code).toBe('23514');
  });

  it('lets a merchant balance reach exactly zero', async () => {
    const organization = await gateway.createOrganization();
    await db().$executeRaw`UPDATE "Account" SET balance = 0 WHERE "organizationId" = ${organization.id}::uuid AND name = 'main'`;
    expect(await balanceOf(db(), organization.id)).toBe(0n);
  });
}

describe('PostgreSQL keeps the ledger balanced', () => constraintsHold({ embedded: false }));
describe('the embedded database (PGlite) keeps the ledger balanced', () => constraintsHold({ embedded: true }));
