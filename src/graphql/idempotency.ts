/**
 * GraphQL's side of Idempotency-Key: the key comes from a mutation's `idempotencyKey` argument or
 * the HTTP header (the same key if both), and a replay, of a value or of a refusal, is announced
 * with the Idempotent-Replayed header, as REST does. The rule itself is the domain's.
 */
import { DomainError } from '../domain/errors.js';
import type { IdempotentOutcome } from '../domain/idempotency.js';
import type { GraphQLContext } from './builder.js';

export function idempotencyKeyOf(ctx: GraphQLContext, argument: string | null | undefined): string | undefined {
  if (argument != null && ctx.idempotencyKey !== undefined && argument !== ctx.idempotencyKey) {
    throw new DomainError('invalid_input', 'idempotencyKey differs from the Idempotency-Key header');
  }
  return argument ?? ctx.idempotencyKey;
}

/** Runs an idempotent operation and returns its value, announcing a replay. */
export async function announcingReplays<T>(ctx: GraphQLContext, run: () => Promise<IdempotentOutcome<T>>): Promise<T> {
  try {
    const { value, replayed } = await run();
    if (replayed) ctx.responseHeaders.set('idempotent-replayed', 'true');
    return value;
  } catch (error) {
    if (error instanceof DomainError && error.replayed) ctx.responseHeaders.set('idempotent-replayed', 'true');
    throw error;
  }
}
