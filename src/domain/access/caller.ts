/**
 * The principals a request may act as. Types only, and below everything that handles callers:
 * authentication (auth.ts) builds them and the caller cache (callerCache.ts) keeps them, so
 * neither needs the other to name a caller.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { ApiScope, OperatorRole } from '../../generated/prisma/enums.js';

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

export type Caller = MerchantCaller | OperatorCaller;
