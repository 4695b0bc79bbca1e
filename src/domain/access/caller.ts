/**
 * The principals a request may act as. Types only, and below everything that handles callers:
 * authentication (auth.ts) builds them and the caller cache (callerCache.ts) keeps them, so
 * neither needs the other to name a caller.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { ApiScope, MerchantRole, OperatorRole } from '../../generated/prisma/enums.js';

/** A merchant's API key: one organisation, one scope. */
export interface MerchantCaller {
  kind: 'merchant';
  apiKeyId: string;
  scope: ApiScope;
  organization: Organization;
}

/** An operator token (GATEWAY_ADMIN_TOKEN or an issued one): the whole gateway, by role. */
export interface OperatorCaller {
  kind: 'operator';
  role: OperatorRole;
  /** null for the bootstrap GATEWAY_ADMIN_TOKEN. */
  tokenId: string | null;
}

/**
 * A person signed in to the merchant dashboard (a session cookie): one organisation, by role.
 * Acts on its own organisation exactly like a merchant key does, with the rows' `users` instead
 * of their `scopes`.
 */
export interface MerchantUserCaller {
  kind: 'merchantUser';
  userId: string;
  email: string;
  role: MerchantRole;
  organization: Organization;
  /** The session's id (not its cookie value): what signing out or removing the member ends. */
  sessionId: string;
  /**
   * Signed in with a password only, in an organisation that requires two-factor sign-in the user
   * has not set up: it may only enrol (rows marked `whileEnrolling`) until it has.
   */
  mustEnrolTwoFactor?: boolean;
}

/** Who acts on one organisation's behalf: its API key, or one of its dashboard users. */
export type OrganizationCaller = MerchantCaller | MerchantUserCaller;

export type Caller = MerchantCaller | MerchantUserCaller | OperatorCaller;
