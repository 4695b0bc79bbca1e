/**
 * What the audit log records (issue 20's contract): one name per kind of change, shared by every
 * capability that records one, so the dashboard can filter by it.
 */
export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out',
  'user.two_factor_enabled',
  'user.two_factor_disabled',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'team.two_factor_required',
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.secret_rotated',
  'webhook.deleted',
  'webhook.test_sent',
  'webhook.redelivered',
  'transaction.refunded',
  'payout.created',
  'payout_batch.created',
  'payout_batch.started',
  'payout_batch.item_sent',
  'payout_batch.finished',
  'payout_batch.cancelled',
  'business_profile.updated',
  'payment_link.created',
  'payment_link.deactivated',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
