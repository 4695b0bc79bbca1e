/**
 * DELETE /api/v2/payment-links/{id}, GraphQL deactivatePaymentLink: the link takes no more
 * payments (its page answers 410). Its transactions are untouched: one already made stays
 * payable at its checkout, as any transaction (the merchant cancels it if need be). The access
 * names the organisation (a merchant's own), or none for an admin operator (any organisation's).
 */
import type { ReadAccess } from '../access/auth.js';
import { recordAuditEvent } from '../audit/recordAuditEvent.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import { findVisiblePaymentLink, viewOf, type PaymentLinkView } from './paymentLinks.js';
import { markPaymentLinkDeactivated } from './store.js';

export async function deactivatePaymentLink(ctx: GatewayContext, access: ReadAccess<'deactivatePaymentLink'>, id: string): Promise<PaymentLinkView> {
  if (!isUuid(id) || !(await deactivateAndRecord(ctx, access, id))) throw new DomainError('payment_link_not_found');
  return viewOf(ctx.settings, await findVisiblePaymentLink(ctx.db, access.organizationId, id, ctx.clock.now()));
}

/** Deactivates the link and, the first time only, records who did it, in one database transaction. */
function deactivateAndRecord(ctx: GatewayContext, access: ReadAccess<'deactivatePaymentLink'>, id: string): Promise<boolean> {
  return ctx.db.$transaction(async (tx) => {
    const changed = await markPaymentLinkDeactivated(tx, id, access.organizationId);
    if (changed?.newly)
      await recordAuditEvent(tx, {
        organizationId: changed.organizationId,
        actor: access.caller,
        action: 'payment_link.deactivated',
        target: id,
        details: { name: changed.name },
      });
    return changed !== null;
  });
}
