/**
 * The owner requires two-factor sign-in of the whole team (or stops requiring it). Members without
 * it must enrol at their next sign-in (`next: "enrol_two_factor"`); sessions already open go on.
 */
import type { OrganizationRecord } from '../organizations/store.js';
import type { Caller } from '../access/caller.js';
import { authorize, organizationOf } from '../access/policy.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { readOrganizationOrThrow } from './organization.js';
import { setRequireTwoFactor } from './store.js';

export async function setTeamTwoFactorRequired(
  ctx: GatewayContext,
  caller: Caller,
  required: boolean,
  organizationId?: string | null,
): Promise<OrganizationRecord> {
  authorize(caller, 'setTeamTwoFactorRequired');
  const id = organizationOf(caller, organizationId);
  if (!id) throw new DomainError('invalid_input', 'organizationId is required');
  if (typeof required !== 'boolean') throw new DomainError('invalid_input', 'required must be true or false');
  await readOrganizationOrThrow(ctx.db, id);
  return ctx.db.$transaction(async (tx) => {
    const organization = await setRequireTwoFactor(tx, id, required);
    await recordAuditEvent(tx, { organizationId: id, actor: caller, action: 'team.two_factor_required', details: { required } });
    return organization;
  });
}
