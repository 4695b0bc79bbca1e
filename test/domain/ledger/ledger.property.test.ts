/**
 * The ledger's invariants under random sequences of money movements (issue 7 item 3): payments
 * (succeeding or declined), cancels, refunds (succeeding or refused by the provider), escrow
 * releases and operator adjustments, and (issue 8) payouts sent, refused by the provider, timed
 * out then reconciled, and above the review threshold approved or rejected, run one after another
 * and all at once. After each run:
 *
 * - every posting sums to zero, every balance equals its entries, none is negative
 *   (test/support/ledger.ts reads the database directly);
 * - each organisation's `main` and `escrow` hold exactly what its transactions' final states say
 *   they should, computed here from the states and the fee rule, not from the ledger:
 *   paid -> proceeds in main; paid_and_blocked -> proceeds in escrow; refunded -> proceeds - amount
 *   in main (fees are not returned); pending, cancelled -> nothing; plus the accepted adjustments;
 *   minus amount + fees of every payout completed or pending (sent, or reserved for review), and
 *   nothing for a failed or cancelled one (its funds came back).
 *
 * Refusals (not payable, insufficient balance, refund in progress...) are legitimate outcomes of a
 * random sequence; anything that is not a DomainError fails the property.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorizeMerchant, type MerchantCaller } from '../../../src/domain/access/auth.js';
import { DomainError } from '../../../src/domain/errors.js';
import { collectionFeeRateOf, feeOf } from '../../../src/domain/ledger/fees.js';
import {
  adjustAccount,
  approvePayout,
  cancelTransaction,
  createPayout,
  createTransaction,
  payTransaction,
  refundTransaction,
  rejectPayout,
  releaseEscrow,
} from '../../../src/domain/operations.js';
import { MANUAL_REVIEW_THRESHOLD, settlePendingPayouts } from '../../../src/domain/payouts/payouts.js';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { useGateway } from '../../support/gateway.js';
import { expectBalancedLedger } from '../../support/ledger.js';

const gateway = useGateway({ sandboxLatencyMs: 0 });

/** Wallets by sandbox outcome: pays and refunds; declines; pays but its refund is refused. */
const PHONES = { ok: '+221771234567', declined: '+221770000000', refundRefused: '+221770000009' } as const;
/** Recipient wallets by sandbox payout outcome: sent; refused; no answer (pending until reconciled). */
const RECIPIENTS = { ok: '+221771234567', refused: '+221770000000', timesOut: '+221770001111' } as const;
const ORGANIZATIONS_PER_RUN = 2;

type Command =
  | { kind: 'create'; org: number; amount: number; escrow: boolean; feesCustomerSide: boolean }
  | { kind: 'pay'; tx: number; method: 'wave' | 'orange_money'; phone: keyof typeof PHONES }
  | { kind: 'cancel'; tx: number }
  | { kind: 'refund'; tx: number }
  | { kind: 'release'; tx: number }
  | { kind: 'adjust'; org: number; amount: number }
  | { kind: 'payout'; org: number; amount: number; large: boolean; method: 'wave' | 'orange_money'; phone: keyof typeof RECIPIENTS }
  | { kind: 'review'; payout: number; approve: boolean }
  | { kind: 'reconcile' };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      org: fc.nat(ORGANIZATIONS_PER_RUN - 1),
      amount: fc.integer({ min: 11, max: 500_000 }),
      escrow: fc.boolean(),
      feesCustomerSide: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      tx: fc.nat(30),
      method: fc.constantFrom('wave' as const, 'orange_money' as const),
      phone: fc.constantFrom<(keyof typeof PHONES)[]>('ok', 'ok', 'ok', 'declined', 'refundRefused'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), tx: fc.nat(30) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), tx: fc.nat(30) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), tx: fc.nat(30) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('adjust' as const),
      org: fc.nat(ORGANIZATIONS_PER_RUN - 1),
      amount: fc.integer({ min: -300_000, max: 300_000 }).filter((n) => n !== 0),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      org: fc.nat(ORGANIZATIONS_PER_RUN - 1),
      amount: fc.integer({ min: 11, max: 60_000 }),
      large: fc.boolean(),
      method: fc.constantFrom('wave' as const, 'orange_money' as const),
      phone: fc.constantFrom<(keyof typeof RECIPIENTS)[]>('ok', 'ok', 'refused', 'timesOut'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('review' as const), payout: fc.nat(20), approve: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reconcile' as const }) },
);

interface World {
  organizations: OrganizationRecord[];
  transactions: { id: string; org: number }[];
  payouts: string[];
  /** Adjustments the gateway accepted, per organisation. */
  adjusted: bigint[];
}

const accessOf = <Op extends 'createTransaction' | 'cancelTransaction' | 'refundTransaction' | 'createPayout'>(
  organization: OrganizationRecord,
  operation: Op,
) =>
  authorizeMerchant(
    { kind: 'merchant', apiKeyId: 'property', scope: operation === 'createPayout' ? 'payout' : 'checkout', organization } satisfies MerchantCaller,
    operation,
  );

/**
 * A payout; a large one (above the review threshold) first gets its funds from an adjustment, so
 * that it is recorded and waits for review instead of being refused for the balance.
 */
async function runPayout(world: World, step: Extract<Command, { kind: 'payout' }>): Promise<void> {
  const organization = world.organizations[step.org]!;
  const amount = step.large ? Number(MANUAL_REVIEW_THRESHOLD) + step.amount : step.amount;
  if (step.large) {
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: amount * 2, reason: 'property test: large payout' });
    world.adjusted[step.org]! += BigInt(amount * 2);
  }
  const { value } = await createPayout(gateway.ctx, accessOf(organization, 'createPayout'), {
    selectedPaymentMethod: step.method,
    amount,
    recipient: { phone: RECIPIENTS[step.phone] },
  });
  world.payouts.push(value.id);
}

async function runReview(world: World, step: Extract<Command, { kind: 'review' }>): Promise<void> {
  const payoutId = world.payouts[step.payout % Math.max(world.payouts.length, 1)];
  if (!payoutId) return;
  if (step.approve) await approvePayout(gateway.ctx, gateway.operator, payoutId);
  else await rejectPayout(gateway.ctx, gateway.operator, payoutId);
}

/** Runs one command; a refusal is a legitimate outcome, anything else is thrown. */
async function run(world: World, step: Command): Promise<void> {
  const ctx = gateway.ctx;
  const target = 'tx' in step ? world.transactions[step.tx % Math.max(world.transactions.length, 1)] : undefined;
  try {
    switch (step.kind) {
      case 'create': {
        const organization = world.organizations[step.org]!;
        const { value } = await createTransaction(ctx, accessOf(organization, 'createTransaction'), {
          methodOfPayment: ['wave', 'orange_money'],
          products: [{ name: 'Article', price: step.amount, quantity: 1 }],
          isEscrow: step.escrow,
          feesCustomerSide: step.feesCustomerSide,
        });
        world.transactions.push({ id: value.transaction.id, org: step.org });
        return;
      }
      case 'adjust': {
        await adjustAccount(ctx, gateway.operator, { organizationId: world.organizations[step.org]!.id, amount: step.amount, reason: 'property test' });
        world.adjusted[step.org]! += BigInt(step.amount);
        return;
      }
      case 'payout':
        return await runPayout(world, step);
      case 'review':
        return await runReview(world, step);
      case 'reconcile':
        await settlePendingPayouts(ctx, { olderThanMs: 0 });
        return;
    }
    if (!target) return;
    const organization = world.organizations[target.org]!;
    if (step.kind === 'pay') await payTransaction(ctx, { kind: 'customer' }, target.id, { method: step.method, phone: PHONES[step.phone] });
    if (step.kind === 'cancel') await cancelTransaction(ctx, accessOf(organization, 'cancelTransaction'), target.id);
    if (step.kind === 'refund') await refundTransaction(ctx, accessOf(organization, 'refundTransaction'), target.id);
    if (step.kind === 'release') await releaseEscrow(ctx, gateway.operator, target.id);
  } catch (error) {
    if (!(error instanceof DomainError) || (error.status >= 500 && error.code !== 'refund_failed' && error.code !== 'payout_failed')) throw error;
  }
}

/** What main and escrow must hold, from the transactions' final states and the fee rule alone. */
async function expectBalancesMatchStates(world: World): Promise<void> {
  const db = gateway.db.prisma;
  for (const [index, organization] of world.organizations.entries()) {
    const transactions = await db.transaction.findMany({ where: { organizationId: organization.id } });
    let main = world.adjusted[index]!;
    let escrow = 0n;
    for (const transaction of transactions) {
      if (['pending', 'cancelled'].includes(transaction.status)) {
        expect(transaction.fees).toBe(0n);
        continue;
      }
      const rate = collectionFeeRateOf(organization, transaction.selectedPaymentMethod!);
      expect(transaction.fees).toBe(feeOf(transaction.amount, rate));
      const proceeds = transaction.feesCustomerSide ? transaction.amount : transaction.amount - transaction.fees;
      if (transaction.status === 'paid') main += proceeds;
      if (transaction.status === 'paid_and_blocked') escrow += proceeds;
      if (transaction.status === 'refunded') main += proceeds - transaction.amount;
    }
    for (const payout of await db.payout.findMany({ where: { organizationId: organization.id } })) {
      expect(payout.fees).toBe(feeOf(payout.amount, organization.feePayoutBp));
      // Completed: sent; pending: sent and unanswered, or reserved for review. Failed, cancelled: returned.
      if (payout.status === 'completed' || payout.status === 'pending') main -= payout.amount + payout.fees;
      if (payout.status === 'completed') expect(payout.paidAt).not.toBeNull();
    }
    const accounts = await db.account.findMany({ where: { organizationId: organization.id } });
    const balance = Object.fromEntries(accounts.map((account) => [account.name, account.balance]));
    expect({ main: balance.main, escrow: balance.escrow }).toEqual({ main, escrow });
  }
}

async function newWorld(): Promise<World> {
  const organizations = await Promise.all(
    Array.from({ length: ORGANIZATIONS_PER_RUN }, () => gateway.createOrganization({ verified: true, escrowEnabled: true, payoutEnabled: true })),
  );
  // A little money in main, so that some refunds of merchant-side-fee payments can be covered.
  for (const organization of organizations)
    await adjustAccount(gateway.ctx, gateway.operator, { organizationId: organization.id, amount: 50_000, reason: 'float' });
  return { organizations, transactions: [], payouts: [], adjusted: organizations.map(() => 50_000n) };
}

// Every command list starts with creations, so that the other commands have targets.
const commands = (max: number) =>
  fc
    .tuple(
      fc.array(
        command.filter((step) => step.kind === 'create'),
        { minLength: 3, maxLength: 6 },
      ),
      fc.array(command, { minLength: 10, maxLength: max }),
    )
    .map(([creations, rest]) => [...creations, ...rest]);

describe('the ledger under random money movements', () => {
  it('keeps every invariant when the movements run one after another', async () => {
    await fc.assert(
      fc.asyncProperty(commands(50), async (steps) => {
        const world = await newWorld();
        for (const step of steps) await run(world, step);
        await expectBalancedLedger(gateway.db.prisma);
        await expectBalancesMatchStates(world);
      }),
      { numRuns: 40 },
    );
    // The runs did reach every payout outcome (sent, refused, reviewed, rejected, unanswered).
    const outcomes = await gateway.db.prisma.payout.groupBy({ by: ['status'], _count: true });
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['cancelled', 'completed', 'failed', 'pending']);
  }, 120_000);

  it('keeps every invariant when the movements race each other', async () => {
    await fc.assert(
      fc.asyncProperty(commands(50), async (steps) => {
        const world = await newWorld();
        const creations = steps.filter((step) => step.kind === 'create');
        for (const step of creations) await run(world, step);
        // Everything else at once: payments racing refunds, releases and cancels of one transaction.
        await Promise.all(steps.filter((step) => step.kind !== 'create').map((step) => run(world, step)));
        await expectBalancedLedger(gateway.db.prisma);
        await expectBalancesMatchStates(world);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
