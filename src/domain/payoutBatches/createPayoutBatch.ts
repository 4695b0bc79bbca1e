/**
 * POST /payout-batches (GraphQL createPayoutBatch, and the dashboard's CSV upload through
 * createPayoutBatchFromCsv): every line validated (rules.ts), the valid ones stored as the items of
 * a `draft`, the refused ones named in `errors`. Nothing is sent: the merchant starts or discards it.
 * Idempotency-Key honoured (the same key replays the same draft).
 */
import type { MerchantAccess } from '../access/auth.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { runIdempotently, type IdempotentOutcome } from '../idempotency.js';
import type { OperationOptions } from '../inputs.js';
import { randomUUID } from 'node:crypto';
import { viewOf, type BatchView } from './batches.js';
import { parseBatchCsv, validateBatch, type BatchLineInput } from './rules.js';
import { insertDraft, mainBalanceOf } from './store.js';

export type CreatePayoutBatchInput = { items: BatchLineInput[] } | { csv: string };

export async function createPayoutBatch(
  ctx: GatewayContext,
  access: MerchantAccess<'createPayoutBatch'>,
  input: CreatePayoutBatchInput,
  options: OperationOptions = {},
): Promise<IdempotentOutcome<BatchView>> {
  const { organization } = access;
  const lines = 'csv' in input ? parseBatchCsv(input.csv) : input.items;
  const scope = { organizationId: organization.id, key: options.idempotencyKey, operation: 'createPayoutBatch', input: { lines } };
  return runIdempotently(ctx, scope, async (tx) => {
    const validated = validateBatch(organization, lines, await mainBalanceOf(tx, organization.id));
    const batch = await insertDraft(
      tx,
      {
        id: randomUUID(),
        organizationId: organization.id,
        itemCount: validated.itemCount,
        totalAmount: validated.totalAmount,
        totalFees: validated.totalFees,
        errors: validated.errors,
      },
      validated.items,
    );
    await recordAuditEvent(tx, {
      organizationId: organization.id,
      actor: access.caller,
      action: 'payout_batch.created',
      target: batch.id,
      details: { itemCount: batch.itemCount, validCount: batch.validCount, totalAmount: String(batch.totalAmount) },
    });
    return viewOf(tx, batch);
  });
}
