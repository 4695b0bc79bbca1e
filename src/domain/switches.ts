/** Operator kill switches: a switch with no row is on. */
import { PAYMENT_METHODS } from './enums.js';
import type { Db } from './ports.js';
import type { PaymentMethod } from '../generated/prisma/enums.js';

export type SwitchName = 'transactions' | 'payouts' | PaymentMethod;
export const SWITCH_NAMES: readonly SwitchName[] = ['transactions', 'payouts', ...PAYMENT_METHODS];

export async function isSwitchOn(db: Pick<Db, 'switch'>, name: SwitchName): Promise<boolean> {
  const row = await db.switch.findUnique({ where: { name } });
  return row?.on ?? true;
}
