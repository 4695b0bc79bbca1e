/** Callers for tests that call domain operations directly. */
import type { OperatorCaller } from '../../src/domain/access/auth.js';

/** The bootstrap admin (GATEWAY_ADMIN_TOKEN). */
export const OPERATOR: OperatorCaller = { kind: 'operator', role: 'admin', tokenId: null };
