/** A new set of ten recovery codes (the old ones stop working), with a current code as proof. */
import type { Caller } from '../access/caller.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { useSecondFactor } from './codes.js';
import { newRecoveryCodes } from './secondFactor.js';
import { signedInUser } from './signedInUser.js';
import { throttleSecondFactor } from './throttle.js';
import { replaceRecoveryCodes } from './store.js';

export async function regenerateRecoveryCodes(ctx: GatewayContext, caller: Caller, code: unknown): Promise<string[]> {
  const { user } = await signedInUser(ctx, caller, 'regenerateRecoveryCodes');
  // Codes are guessable one by one: the same budget as the sign-in's second step.
  await throttleSecondFactor(ctx, user.id);
  if (!user.twoFactorEnabled) throw new DomainError('two_factor_not_enabled');
  const { codes, digests } = newRecoveryCodes();
  await ctx.db.$transaction(async (tx) => {
    if (!(await useSecondFactor(ctx, tx, user, code))) throw new DomainError('invalid_second_factor');
    await replaceRecoveryCodes(tx, user.id, digests);
  });
  return codes;
}
