/** What an escrow transaction's proceeds still hold in `escrow`: the sum of its entries there. */
import type { DbTransaction } from '../context.js';

export async function heldInEscrow(tx: Pick<DbTransaction, '$queryRaw'>, organizationId: string, transactionId: string): Promise<bigint> {
  const [row] = await tx.$queryRaw<{ held: bigint | string }[]>`
    SELECT COALESCE(SUM(e.amount), 0)::bigint AS held
    FROM "LedgerEntry" e JOIN "Account" a ON a.id = e."accountId"
    WHERE e."transactionId" = ${transactionId}::uuid AND a."organizationId" = ${organizationId}::uuid AND a.name = 'escrow'`;
  return BigInt(row?.held ?? 0);
}
