/**
 * Second step of signing in: a TOTP code or a recovery code, on the session the password opened.
 * Throttled per account. Success ends that session and opens a NEW one (a token known before the
 * second factor is worthless after it), signed in.
 */
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { useSecondFactor } from './codes.js';
import { liveSession, openSession, userActor, type IssuedSession } from './sessions.js';
import { deleteSession } from './store.js';
import { throttleSecondFactor } from './throttle.js';

export interface VerifySecondFactorInput {
  /** The session cookie of the password step. */
  sessionToken: unknown;
  code: unknown;
  clientAddress: string;
}

export async function verifySecondFactor(ctx: GatewayContext, input: VerifySecondFactorInput): Promise<IssuedSession> {
  const pending = await liveSession(ctx, input.sessionToken);
  if (!pending || pending.secondFactorDone || !pending.user.twoFactorEnabled) throw new DomainError('not_signed_in');
  const { user } = pending;
  await throttleSecondFactor(ctx, user.id);
  const now = ctx.clock.now();
  return ctx.db
    .$transaction(async (tx) => {
      const used = await useSecondFactor(ctx, tx, user, input.code);
      if (!used) {
        // A refusal commits nothing but its audit row: recorded outside this transaction, which rolls back.
        throw new DomainError('invalid_second_factor');
      }
      await deleteSession(tx, pending.id);
      const session = await openSession(tx, user.id, true, now);
      await recordAuditEvent(tx, {
        organizationId: user.organizationId,
        actor: userActor(user),
        action: 'user.signed_in',
        target: user.email,
        details: { secondFactor: used },
        at: now,
      });
      return session;
    })
    .catch(async (error: unknown) => {
      if (error instanceof DomainError && error.code === 'invalid_second_factor') {
        await recordAuditEvent(ctx.db, {
          organizationId: user.organizationId,
          actor: { kind: 'anonymous' },
          action: 'user.sign_in_failed',
          target: user.email,
          details: { step: 'second_factor', clientAddress: input.clientAddress },
          at: now,
        });
      }
      throw error;
    });
}
