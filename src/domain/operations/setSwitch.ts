/** Operator: turns a kill switch (transactions, payouts, wave, orange_money) on or off. */
import { authorizeOperator, type Caller } from '../auth.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isOneOf } from '../enums.js';
import { SWITCH_NAMES, type SwitchName } from '../switches.js';

export interface SwitchState {
  name: SwitchName;
  on: boolean;
}

export async function setSwitch(ctx: GatewayContext, caller: Caller, name: string, on: boolean): Promise<SwitchState> {
  authorizeOperator(caller, 'mutate');
  if (!isOneOf(SWITCH_NAMES, name)) throw new DomainError('invalid_input', `switch must be one of ${SWITCH_NAMES.join(', ')}`);
  const row = await ctx.db.switch.upsert({ where: { name }, create: { name, on }, update: { on } });
  return { name, on: row.on };
}

export async function listSwitches(ctx: GatewayContext, caller: Caller): Promise<SwitchState[]> {
  authorizeOperator(caller, 'read');
  const rows = await ctx.db.switch.findMany();
  const state = new Map(rows.map((row) => [row.name, row.on]));
  return SWITCH_NAMES.map((name) => ({ name, on: state.get(name) ?? true }));
}
