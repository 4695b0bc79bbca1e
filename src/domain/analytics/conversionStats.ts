/**
 * conversionStats: of the transactions created in [from, to), how many were paid, per method. A
 * transaction counts as created for every method it offered (a method is only chosen when paid),
 * and as paid for the method it was paid with; paid means it was ever paid (paid, held in escrow,
 * or paid then refunded). The last row (method null) is every transaction and every paid one.
 */
import type { ReadAccess } from '../access/auth.js';
import { laggingReads, type GatewayContext } from '../context.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { checkScannedRange, type StatsRange } from './ranges.js';
import { conversionRows } from './store.js';

export interface ConversionStats {
  method: PaymentMethod | null;
  created: number;
  paid: number;
  /** paid / created, null when nothing was created. */
  rate: number | null;
}

export async function conversionStats(ctx: GatewayContext, access: ReadAccess<'conversionStats'>, range: StatsRange): Promise<ConversionStats[]> {
  checkScannedRange(range);
  const rows = await conversionRows(laggingReads(ctx), range, access.organizationId);
  return rows.map((row) => ({ ...row, rate: row.created === 0 ? null : row.paid / row.created }));
}
