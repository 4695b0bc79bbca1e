/**
 * A customer fills a link's page (POST /pay/{id} on the checkout origin): one ordinary pending
 * transaction is made from the link through THE creation rule (createTransactionOf: switches,
 * methods, amount limits, the unverified organisation's monthly limit), carrying the link's id;
 * the customer then pays it at its checkout like any other. Nothing here moves money.
 *
 * Single use, decided by PostgreSQL: the link's row is locked FOR UPDATE and claimed by one
 * conditional UPDATE in the same database transaction as the insert, so of customers paying it at
 * once exactly one gets a transaction; the others get `payment_link_in_use` (409) while that
 * transaction is pending (the same phone gets its own transaction back), and the link answers
 * `used` (410) once it is paid. A claim is released only by cancelling its transaction (which
 * can then never be paid), so a single-use link is paid at most once.
 *
 * The page is public (anyone holding the link may post it), so orders through one link from one
 * client address are throttled (LINK_ORDERS_PER_ADDRESS): without it a script could make pending
 * transactions without bound, or take a single-use link by posting any phone.
 */
import type { Organization } from '../../generated/prisma/client.js';
import { authorize, refuseForOrganizationState, type Principal } from '../access/policy.js';
import { inTransaction } from '../afterCommit.js';
import type { GatewayContext } from '../context.js';
import { DomainError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { RateLimitRule } from '../ports.js';
import { normalizePhone } from '../phones.js';
import { hitThrottle, retryAfterOfRefused } from '../rateLimit.js';
import { MAX_NAME_LENGTH, optionalBoundedText } from '../text.js';
import { createTransactionOf } from '../transactions/createTransaction.js';
import { checkoutUrlOf } from '../transactions/transactions.js';
import { transactionInputOf } from './paymentLinks.js';
import { claimPaymentLink, lockPaymentLink, readClaim, readPaymentLink } from './store.js';

export interface PayPaymentLinkInput {
  firstName: string;
  lastName?: string | null;
  phone: string;
  /** The customer's address as the checkout origin sees it (the throttle's key, never stored). */
  clientAddress: string;
}

/**
 * Per link and client address: room for a customer's typing mistakes and for several customers
 * of one link behind a mobile operator's shared address (carrier NAT is the rule in West Africa),
 * while one address makes at most 30 transactions through a link in 10 minutes. Invalid forms
 * count too (the limiter has no undo).
 */
const LINK_ORDERS_PER_ADDRESS: RateLimitRule = { max: 30, windowMs: 10 * 60_000 };

/** 429 with the time to wait (the page's Retry-After). */
export class PaymentLinkThrottledError extends DomainError {
  constructor(readonly retryAfterMs: number) {
    super('payment_link_throttled');
  }
}

export interface LinkTransaction {
  orderId: string;
  checkoutUrl: string;
}

export async function payPaymentLink(ctx: GatewayContext, payer: Principal, linkId: string, input: PayPaymentLinkInput): Promise<LinkTransaction> {
  authorize(payer, 'payPaymentLink');
  const retryAfterMs = retryAfterOfRefused([
    await hitThrottle(ctx, 'payment-link', `link:${linkId.slice(0, 64)}:${input.clientAddress}`, LINK_ORDERS_PER_ADDRESS),
  ]);
  if (retryAfterMs !== null) throw new PaymentLinkThrottledError(retryAfterMs);
  const customer = validCustomer(input);
  const known = isUuid(linkId) ? await readPaymentLink(ctx.db, linkId, null, ctx.clock.now(), { stats: false }) : null;
  if (!known) throw new DomainError('payment_link_not_found');
  return inTransaction(ctx, async (tx) => {
    const link = await lockPaymentLink(tx, linkId, known.singleUse, ctx.clock.now());
    if (!link) throw new DomainError('payment_link_not_found');
    if (link.status !== 'active') throw new DomainError('payment_link_gone', link.status);
    const organization = await tx.organization.findUnique({ where: { id: link.organizationId } });
    if (!organization) throw new DomainError('payment_link_not_found');
    // What the organisation's own key could not do (blocked, inactive), its link does not either.
    refuseForOrganizationState(organization, 'createTransaction');
    if (link.singleUse && link.claimTransactionId) {
      const held = await readClaim(tx, link.claimTransactionId);
      if (held?.status === 'pending') {
        // The customer who holds it, back on the page (a reload, the back button): their own transaction.
        if (held.customerPhone === customer.phone)
          return { orderId: link.claimTransactionId, checkoutUrl: checkoutUrlOf(ctx.settings, link.claimTransactionId) };
        throw new DomainError('payment_link_in_use');
      }
    }
    const created = await createTransactionOf(ctx, tx, organization as Organization, transactionInputOf(link, customer), { paymentLinkId: link.id });
    if (link.singleUse && !(await claimPaymentLink(tx, link.id, created.transaction.id))) throw new DomainError('payment_link_in_use');
    return { orderId: created.transaction.id, checkoutUrl: created.checkoutUrl };
  });
}

function validCustomer(input: PayPaymentLinkInput) {
  const firstName = (optionalBoundedText('first_name', input.firstName, MAX_NAME_LENGTH) ?? '').trim();
  if (!firstName) throw new DomainError('payment_link_invalid', 'first_name is required');
  const lastName = optionalBoundedText('last_name', input.lastName?.trim() || null, MAX_NAME_LENGTH);
  if (!input.phone.trim()) throw new DomainError('invalid_phone');
  return { firstName, lastName, phone: normalizePhone(input.phone) };
}
