/**
 * Checking a second-factor code a user typed: a TOTP code of its confirmed secret (each 30-second
 * step accepted once), or one of its unused recovery codes (each once).
 */
import type { MerchantUser } from '../../generated/prisma/client.js';
import type { GatewayContext } from '../context.js';
import type { Db, DbTransaction } from '../ports.js';
import { MAX_CODE_LENGTH, isTotpShaped, openTotpSecret, recoveryCodeDigest, totpStepOf } from './secondFactor.js';
import { claimRecoveryCode, claimTotpStep } from './store.js';

export type SecondFactorKind = 'totp' | 'recovery_code';

/** Which kind of code `code` was, once accepted (and used up); null when it is not a valid unused code. */
export async function useSecondFactor(ctx: GatewayContext, db: Db | DbTransaction, user: MerchantUser, code: unknown): Promise<SecondFactorKind | null> {
  if (typeof code !== 'string' || !user.twoFactorEnabled || !user.totpSecretEncrypted) return null;
  const typed = code.trim();
  if (typed.length === 0 || typed.length > MAX_CODE_LENGTH) return null;
  const now = ctx.clock.now();
  if (isTotpShaped(typed)) {
    const step = totpStepOf(openTotpSecret(ctx, user.id, user.totpSecretEncrypted), typed, now);
    return step !== null && (await claimTotpStep(db, user.id, step)) ? 'totp' : null;
  }
  return (await claimRecoveryCode(db, user.id, recoveryCodeDigest(typed), now)) ? 'recovery_code' : null;
}
