/**
 * Who manages an organisation's webhooks: operators (admin to change, any role to read), and the
 * organisation itself through an API key with the `management` scope (the spec's dashboard is
 * where merchants register webhooks; this is its API). Another organisation's webhook or delivery
 * answers like a missing one.
 */
import type { Webhook } from '../../generated/prisma/client.js';
import { authorizeOperator, type Caller } from '../auth.js';
import { DomainError } from '../errors.js';

export const WEBHOOK_MANAGEMENT_SCOPES = ['management'] as const;
/** Endpoints per organisation: a bound on the fan-out of each event. */
export const MAX_WEBHOOKS_PER_ORGANIZATION = 10;

/** A webhook as callers see it: never its (encrypted) secret. */
export type WebhookRecord = Omit<Webhook, 'encryptedSecret'>;
export const WEBHOOK_FIELDS = {
  id: true,
  organizationId: true,
  url: true,
  version: true,
  isActive: true,
  createdAt: true,
  updatedAt: true,
} as const;

/**
 * The organisation the caller acts on: a merchant's own (naming another one is refused), or the
 * one an operator names (null = all, for reads).
 */
export function webhookScope(caller: Caller, action: 'read' | 'mutate', organizationId?: string | null): string | null {
  if (caller.kind === 'operator') {
    authorizeOperator(caller, action);
    return organizationId ?? null;
  }
  const { organization } = caller;
  if (organization.status === 'blocked') throw new DomainError('organization_blocked');
  if (organization.status === 'inactive' && action === 'mutate') throw new DomainError('organization_inactive');
  if (!(WEBHOOK_MANAGEMENT_SCOPES as readonly string[]).includes(caller.scope)) throw new DomainError('permission_denied');
  if (organizationId && organizationId !== organization.id) throw new DomainError('permission_denied');
  return organization.id;
}
