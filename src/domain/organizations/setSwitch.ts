/** Operator: turns a kill switch (transactions, payouts, wave, orange_money) on or off. */
import type { Caller } from '../access/caller.js';
import { authorize } from '../access/policy.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isOneOf } from '../enums.js';
import { SWITCH_NAMES, readSwitches, type SwitchName } from './switches.js';
import { saveSwitch } from './store.js';

export interface SwitchState {
  name: SwitchName;
  on: boolean;
}

export async function setSwitch(ctx: GatewayContext, caller: Caller, name: string, on: boolean): Promise<SwitchState> {
  authorize(caller, 'setSwitch');
  if (!isOneOf(SWITCH_NAMES, name)) throw new DomainError('invalid_input', `switch must be one of ${SWITCH_NAMES.join(', ')}`);
  const stored = await saveSwitch(ctx.db, name, on);
  await invalidateSwitches(ctx);
  return { name, on: stored };
}

/**
 * The change is committed: cached switches are dropped here and in every instance. A bus failure is
 * logged, not thrown; other instances then catch up within SWITCH_CACHE_TTL_MS.
 */
async function invalidateSwitches(ctx: GatewayContext): Promise<void> {
  await ctx.switches?.invalidate().catch((error: unknown) => {
    ctx.log.warn({ err: error }, 'could not publish a switch change to other instances; their cached switches expire on their own');
  });
}

export async function listSwitches(ctx: GatewayContext, caller: Caller): Promise<SwitchState[]> {
  authorize(caller, 'listSwitches');
  const states = await readSwitches(ctx.db);
  return SWITCH_NAMES.map((name) => ({ name, on: states.get(name)! }));
}
