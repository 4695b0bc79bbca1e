/**
 * The one posting builder (src/domain/ledger/store.ts ctesOfPosting), driven straight through post()
 * and the CTEs callers embed: random balanced postings over up to three merchant accounts (two
 * organisations' `main` and `escrow`, listed in random order) and one or two gateway accounts,
 * debits larger than the balance included, run one after another and all at once. After each run:
 *
 * - every posting sums to zero, every balance equals its entries, none is negative
 *   (test/support/ledger.ts reads the database directly);
 * - in sequence, a posting is refused exactly when a debit exceeds its account's balance (the model
 *   below), and a refused one changes nothing, even when an account before the refused one in lock
 *   order had already moved in the statement;
 * - racing, no posting fails but for `insufficient_balance` (no deadlock: accounts are locked in one
 *   order), and every balance is its start plus the accepted postings' movements.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountName, GatewayAccount } from '../../../src/generated/prisma/enums.js';
import { Prisma } from '../../../src/generated/prisma/client.js';
import { authorizeMerchant } from '../../../src/domain/access/auth.js';
import { DomainError } from '../../../src/domain/errors.js';
import { createTransaction } from '../../../src/domain/operations.js';
import { creditPostingCtes, debitPostingCtes, post, statementPostingsCtes, type Movement, type Posting } from '../../../src/domain/ledger/posting.js';
import { runStatement } from '../../../src/domain/statements.js';
import { useGateway } from '../../support/gateway.js';
import { balanceOf, expectBalancedLedger } from '../../support/ledger.js';

const gateway = useGateway();

const START_BALANCE = 1_000n;
const NAMES: AccountName[] = ['main', 'escrow'];

interface World {
  /** Four merchant accounts: two organisations' main and escrow. */
  accounts: { organizationId: string; account: AccountName }[];
}

interface RandomPosting {
  moves: { account: number; amount: number }[];
  /** How the gateway side is split: one account, or two. */
  split: number | null;
}

const randomPosting: fc.Arbitrary<RandomPosting> = fc.record({
  moves: fc.uniqueArray(fc.record({ account: fc.nat(3), amount: fc.integer({ min: -1_500, max: 1_500 }) }), {
    selector: (move) => move.account,
    minLength: 1,
    maxLength: 3,
  }),
  split: fc.option(fc.integer({ min: -500, max: 500 })),
});

function postingOf(world: World, random: RandomPosting): Posting {
  const merchant: Movement[] = random.moves.map((move) => ({ side: world.accounts[move.account]!, amount: BigInt(move.amount) }));
  const owed = -merchant.reduce((total, movement) => total + movement.amount, 0n);
  const gateway = (account: GatewayAccount, amount: bigint): Movement => ({ side: { gateway: account }, amount });
  const sides =
    random.split === null
      ? [gateway('adjustments', owed)]
      : [gateway('adjustments', owed - BigInt(random.split)), gateway('fee_revenue', BigInt(random.split))];
  return { kind: 'adjustment', description: 'posting property', movements: [...merchant, ...sides] };
}

async function newWorld(): Promise<World> {
  const organizations = await Promise.all([gateway.createOrganization(), gateway.createOrganization()]);
  const accounts = organizations.flatMap((organization) => NAMES.map((account) => ({ organizationId: organization.id, account })));
  await gateway.ctx.db.$transaction((tx) =>
    post(tx, {
      kind: 'adjustment',
      description: 'float',
      movements: [...accounts.map((side) => ({ side, amount: START_BALANCE })), { side: { gateway: 'adjustments' }, amount: -4n * START_BALANCE }],
    }),
  );
  return { accounts };
}

/** The four accounts' balances, in the world's order: one read. */
async function balancesOf(world: World): Promise<bigint[]> {
  const rows = await gateway.db.prisma.account.findMany({
    where: { organizationId: { in: organizationsOf(world) } },
    select: { organizationId: true, name: true, balance: true },
  });
  return world.accounts.map((side) => rows.find((row) => row.organizationId === side.organizationId && row.name === side.account)!.balance);
}

const organizationsOf = (world: World): string[] => [...new Set(world.accounts.map((side) => side.organizationId))];

const entriesOf = (world: World): Promise<number> =>
  gateway.db.prisma.ledgerEntry.count({ where: { account: { organizationId: { in: organizationsOf(world) } } } });

/** post() in a database transaction of its own: the accepted movements, or null when refused. */
async function tryPost(posting: Posting): Promise<Movement[] | null> {
  try {
    await gateway.ctx.db.$transaction((tx) => post(tx, posting));
    return posting.movements;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'insufficient_balance') return null;
    throw error;
  }
}

const expectedBalances = (world: World, accepted: Movement[][]): bigint[] =>
  world.accounts.map((account) => accepted.flat().reduce((total, movement) => (movement.side === account ? total + movement.amount : total), START_BALANCE));

describe('postings built by the one builder', () => {
  it('balance, match their entries, and are refused exactly when a debit exceeds its balance, changing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(randomPosting, { minLength: 5, maxLength: 25 }), async (randoms) => {
        const world = await newWorld();
        const accepted: Movement[][] = [];
        for (const random of randoms) {
          const posting = postingOf(world, random);
          const [before, entriesBefore] = [await balancesOf(world), await entriesOf(world)];
          const covered = random.moves.every((move) => before[move.account]! + BigInt(move.amount) >= 0n);
          const outcome = await tryPost(posting);
          expect(outcome !== null).toBe(covered);
          if (outcome) accepted.push(outcome);
          const after = await balancesOf(world);
          if (!outcome) {
            expect(after).toEqual(before);
            expect(await entriesOf(world)).toBe(entriesBefore);
          }
          expect(after).toEqual(expectedBalances(world, accepted));
        }
        await expectBalancedLedger(gateway.db.prisma);
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('keep every invariant when they race, without a deadlock', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(randomPosting, { minLength: 5, maxLength: 25 }), async (randoms) => {
        const world = await newWorld();
        const outcomes = await Promise.all(randoms.map((random) => tryPost(postingOf(world, random))));
        await expectBalancedLedger(gateway.db.prisma);
        expect(await balancesOf(world)).toEqual(
          expectedBalances(
            world,
            outcomes.filter((outcome) => outcome !== null),
          ),
        );
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it('between gateway accounts only (nothing to refuse): writes its entries, balanced', async () => {
    const description = `gateway only ${Date.now()}`;
    await gateway.ctx.db.$transaction((tx) =>
      post(tx, {
        kind: 'adjustment',
        description,
        movements: [
          { side: { gateway: 'adjustments' }, amount: -7n },
          { side: { gateway: 'fee_revenue' }, amount: 7n },
        ],
      }),
    );
    const entries = await gateway.ctx.db.ledgerEntry.findMany({ where: { description }, orderBy: { amount: 'asc' } });
    expect(entries.map((entry) => [entry.gatewayAccount, entry.amount, entry.accountId])).toEqual([
      ['adjustments', -7n, null],
      ['fee_revenue', 7n, null],
    ]);
    expect(new Set(entries.map((entry) => entry.postingId)).size).toBe(1);
  });
});

describe('a posting refused', () => {
  it('after an earlier account in lock order moved: the whole posting is undone', async () => {
    const organization = await gateway.createOrganization();
    const escrow = { organizationId: organization.id, account: 'escrow' as const };
    const main = { organizationId: organization.id, account: 'main' as const };
    // `escrow` is locked (and credited) before `main`, whose debit is refused.
    expect(
      await tryPost({
        kind: 'adjustment',
        movements: [
          { side: main, amount: -200n },
          { side: escrow, amount: 50n },
          { side: { gateway: 'adjustments' }, amount: 150n },
        ],
      }),
    ).toBeNull();
    expect([await balanceOf(gateway.db.prisma, organization.id, 'escrow'), await balanceOf(gateway.db.prisma, organization.id, 'main')]).toEqual([0n, 0n]);
    expect(await gateway.db.prisma.ledgerEntry.count({ where: { account: { organizationId: organization.id } } })).toBe(0);
  });

  it('for an account that does not exist: merchant_account_unavailable', async () => {
    const missing = { organizationId: '00000000-0000-4000-8000-000000000000', account: 'main' as const };
    const posting: Posting = {
      kind: 'adjustment',
      movements: [
        { side: missing, amount: 10n },
        { side: { gateway: 'adjustments' }, amount: -10n },
      ],
    };
    await expect(gateway.ctx.db.$transaction((tx) => post(tx, posting))).rejects.toMatchObject({ code: 'merchant_account_unavailable' });
  });

  it('in a caller’s single statement, without a transaction: writes nothing, and one shape of posting is one prepared text', async () => {
    const organization = await gateway.createOrganization({ verified: true });
    const { value } = await createTransaction(
      gateway.ctx,
      authorizeMerchant({ kind: 'merchant', apiKeyId: 'direct', scope: 'checkout', organization }, 'createTransaction'),
      {
        methodOfPayment: ['wave'],
        products: [{ name: 'Article', price: 1_000, quantity: 1 }],
      },
    );
    await tryPost({
      kind: 'adjustment',
      movements: [
        { side: { organizationId: organization.id, account: 'main' }, amount: 100n },
        { side: { gateway: 'adjustments' }, amount: -100n },
      ],
    });
    const debit = (amount: bigint) =>
      debitPostingCtes({
        organizationId: organization.id,
        account: 'main',
        kind: 'refund',
        about: { transactionId: value.transaction.id },
        description: 'embedded debit',
        debit: amount,
        gatewaySides: [{ gateway: 'provider_clearing_wave', amount }],
        onlyIf: 'allowed',
      });
    // The caller's own row selects FROM `debited`, as refunds and payouts do.
    const debitInOneStatement = async (amount: bigint) => {
      const statement = Prisma.sql`WITH allowed AS (SELECT 1), ${debit(amount)} SELECT id FROM debited`;
      return runStatement<{ id: string }>(gateway.ctx.db, { name: 'test_embedded_debit', text: statement.text }, statement.values);
    };
    const credit = (amount: bigint) =>
      creditPostingCtes({
        source: 'released',
        transactionId: value.transaction.id,
        description: 'embedded credit',
        credit: amount,
        gatewaySides: [{ gateway: 'fee_revenue', amount: -amount }],
      });
    expect(debit(60n).text).toBe(debit(70n).text);
    expect(credit(60n).text).toBe(credit(70n).text);

    expect(await debitInOneStatement(60n)).toHaveLength(1);
    const entries = await gateway.db.prisma.ledgerEntry.count({ where: { transactionId: value.transaction.id } });
    expect(await debitInOneStatement(60n)).toHaveLength(0);
    expect(await balanceOf(gateway.db.prisma, organization.id, 'main')).toBe(40n);
    expect(await gateway.db.prisma.ledgerEntry.count({ where: { transactionId: value.transaction.id } })).toBe(entries);
    await expectBalancedLedger(gateway.db.prisma);
  });
});

/**
 * Several postings in one statement (statementPostingsCtes, as a refund of a held transaction and
 * a failed refund's reversal post them): random postings sharing merchant accounts, their amounts
 * given or read by the statement (an earlier CTE's columns), some of them zero. Against the model:
 * refused exactly when an account's net movement exceeds its balance (then nothing changes);
 * accepted, each account moves by its net, each posting balances by itself, and each entry records
 * the balance after its own posting (zero amounts write no entry).
 */
interface RandomMove {
  account: number;
  amount: number;
  read: boolean;
}
const randomCompound: fc.Arbitrary<RandomMove[][]> = fc.array(
  fc.uniqueArray(fc.record({ account: fc.nat(3), amount: fc.oneof(fc.constant(0), fc.integer({ min: -1_500, max: 1_500 })), read: fc.boolean() }), {
    selector: (move) => move.account,
    minLength: 1,
    maxLength: 2,
  }),
  { minLength: 2, maxLength: 3 },
);

describe('several postings in one statement', () => {
  it('move each account once by its net, balance each posting, and record the balance after each; refused exactly when a net exceeds its balance', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(randomCompound, { minLength: 3, maxLength: 10 }), async (compounds) => {
        const world = await newWorld();
        for (const compound of compounds) {
          run += 1;
          const column = (part: number, move: number) => `p${part}m${move}`;
          const read = compound.flatMap((moves, part) =>
            moves.flatMap((move, index) => (move.read ? [{ name: column(part, index), amount: move.amount }] : [])),
          );
          const description = (part: number) => `compound ${run} posting ${part}`;
          const ctes = statementPostingsCtes({
            as: 'moved',
            onlyIf: 'src',
            postings: compound.map((moves, part) => ({
              kind: 'adjustment' as const,
              description: description(part),
              movements: [
                ...moves.map((move, index) => ({
                  side: world.accounts[move.account]!,
                  amount: move.read ? { cte: 'src', terms: [{ column: column(part, index), sign: 1 as const }] } : BigInt(move.amount),
                })),
                {
                  side: { gateway: 'adjustments' as const },
                  amount: -moves.filter((move) => !move.read).reduce((total, move) => total + BigInt(move.amount), 0n),
                },
                ...moves.flatMap((move, index) =>
                  move.read
                    ? [{ side: { gateway: 'fee_revenue' as const }, amount: { cte: 'src', terms: [{ column: column(part, index), sign: -1 as const }] } }]
                    : [],
                ),
              ],
            })),
          });
          const source =
            read.length > 0
              ? Prisma.sql`SELECT ${Prisma.join(read.map((column) => Prisma.sql`${String(column.amount)}::bigint AS ${Prisma.raw(`"${column.name}"`)}`))}`
              : Prisma.sql`SELECT 1`;
          const before = await balancesOf(world);
          const entriesBefore = await entriesOf(world);
          const nets = world.accounts.map((_, account) =>
            compound.flat().reduce((total, move) => (move.account === account ? total + BigInt(move.amount) : total), 0n),
          );
          const covered = nets.every((net, account) => before[account]! + net >= 0n);
          const refused = new Error('refused');
          const outcome = await gateway.ctx.db
            .$transaction(async (tx) => {
              const rows = await tx.$queryRaw<{ id: string }[]>`WITH src AS (${source}), ${ctes} SELECT id FROM moved`;
              if (rows.length === 0) throw refused;
            })
            .then(
              () => 'accepted',
              (error: unknown) => {
                if (error !== refused) throw error;
                return 'refused';
              },
            );
          expect(outcome).toBe(covered ? 'accepted' : 'refused');
          if (!covered) {
            expect(await balancesOf(world)).toEqual(before);
            expect(await entriesOf(world)).toBe(entriesBefore);
            continue;
          }
          expect(await balancesOf(world)).toEqual(before.map((balance, account) => balance + nets[account]!));
          const running = [...before];
          for (const [part, moves] of compound.entries()) {
            for (const move of moves) running[move.account]! += BigInt(move.amount);
            const entries = await gateway.db.prisma.ledgerEntry.findMany({ where: { description: description(part) } });
            expect(new Set(entries.map((entry) => entry.postingId)).size).toBeLessThanOrEqual(1);
            expect(entries.reduce((total, entry) => total + entry.amount, 0n)).toBe(0n);
            const merchant = entries
              .filter((entry) => entry.accountId !== null)
              .map((entry) => [entry.accountId, entry.amount, entry.balanceAfter])
              .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
            const ids = await Promise.all(
              moves
                .filter((move) => move.amount !== 0)
                .map(async (move) => {
                  const side = world.accounts[move.account]!;
                  const account = await gateway.db.prisma.account.findUniqueOrThrow({
                    where: { organizationId_name: { organizationId: side.organizationId, name: side.account } },
                  });
                  return [account.id, BigInt(move.amount), running[move.account]!];
                }),
            );
            expect(merchant).toEqual(ids.sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
          }
        }
        await expectBalancedLedger(gateway.db.prisma);
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('are each checked balanced before they run', () => {
    const side = { organizationId: '00000000-0000-4000-8000-000000000001', account: 'main' as const };
    expect(() =>
      statementPostingsCtes({
        as: 'moved',
        postings: [
          {
            kind: 'adjustment',
            description: 'first',
            movements: [
              { side, amount: 5n },
              { side: { gateway: 'adjustments' }, amount: -5n },
            ],
          },
          // Balanced with the first, not by itself.
          { kind: 'adjustment', description: 'second', movements: [{ side: { gateway: 'adjustments' }, amount: 5n }] },
        ],
      }),
    ).toThrow(/unbalanced adjustment posting: entries sum to 5/);
  });
});
