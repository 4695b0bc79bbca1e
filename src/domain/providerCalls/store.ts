/** The provider health reports' SQL: each instance's view of each real provider, shared through PostgreSQL. */
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import type { Db } from '../ports.js';

/** One instance's view of one method's provider, as it last reported it. */
export interface ProviderHealthReportRow {
  instanceId: string;
  method: PaymentMethod;
  provider: string;
  healthy: boolean;
  reason: string;
  since: Date | null;
  lastAnsweredAt: Date | null;
  lastFailedAt: Date | null;
  reportedAt: Date;
}

/** Writes (or replaces) this instance's reports, one per method, in one statement each (a handful of rows). */
export async function writeProviderHealthReports(db: Db, reports: ProviderHealthReportRow[]): Promise<void> {
  await db.$transaction(
    reports.map(({ instanceId, method, ...rest }) =>
      db.providerHealthReport.upsert({ where: { instanceId_method: { instanceId, method } }, create: { instanceId, method, ...rest }, update: rest }),
    ),
  );
}

/** Every instance's reports made since `since` (older ones are of instances that stopped), by the index on (method, reportedAt). */
export async function freshProviderHealthReports(db: Db, methods: readonly PaymentMethod[], since: Date): Promise<ProviderHealthReportRow[]> {
  return (await db.providerHealthReport.findMany({ where: { method: { in: [...methods] }, reportedAt: { gte: since } } })) as ProviderHealthReportRow[];
}

/** Reports nobody will read again (their instance stopped long ago): the table stays a few rows per instance alive. */
export async function purgeProviderHealthReports(db: Db, before: Date): Promise<void> {
  await db.providerHealthReport.deleteMany({ where: { reportedAt: { lt: before } } });
}
