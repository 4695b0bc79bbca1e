/** Operator kill switches: transactions, payouts, wave, orange_money. */
import { listSwitches, setSwitch } from '../../domain/operations.js';
import type { SwitchState } from '../../domain/organizations/setSwitch.js';
import { builder } from '../builder.js';
import { SwitchNameEnum } from './enums.js';

const SwitchRef = builder.objectRef<SwitchState>('Switch').implement({
  fields: (t) => ({
    name: t.field({ type: SwitchNameEnum, resolve: (state) => state.name }),
    on: t.exposeBoolean('on'),
  }),
});

builder.queryField('switches', (t) =>
  t.field({
    type: [SwitchRef],
    description: 'Operators: the state of every kill switch.',
    authScopes: { run: 'listSwitches' },
    resolve: (_root, _args, ctx) => listSwitches(ctx.gateway, ctx.caller),
  }),
);

builder.mutationField('setSwitch', (t) =>
  t.field({
    type: SwitchRef,
    description: 'Operators (admin): turns a switch on or off.',
    authScopes: { run: 'setSwitch' },
    args: { name: t.arg({ type: SwitchNameEnum, required: true }), on: t.arg.boolean({ required: true }) },
    resolve: (_root, args, ctx) => setSwitch(ctx.gateway, ctx.caller, args.name, args.on),
  }),
);
