/**
 * The v1 status vocabulary (docs/v1-clients.md, "What v1 says differently"): the public v1 clients'
 * enum has four transaction statuses (`pending`, `paid`, `done`, `part_paid`) and the official
 * Python SDK refuses any other. Every v1 answer and every v1 webhook body says a status through
 * this one mapping; v2 and GraphQL keep the five real ones.
 */
import type { TransactionStatus } from '../generated/prisma/enums.js';

/** The transaction statuses of the v1 clients' enum (`part_paid` exists there, never here: partial payments do not exist). */
export type V1TransactionStatus = 'pending' | 'paid' | 'done' | 'part_paid';

/** v2's five statuses in the v1 clients' four: held in escrow is `paid`, cancelled or refunded is `done`. */
const V1_STATUS_OF: Record<TransactionStatus, V1TransactionStatus> = {
  pending: 'pending',
  paid: 'paid',
  paid_and_blocked: 'paid',
  cancelled: 'done',
  refunded: 'done',
};

export const toV1TransactionStatus = (status: TransactionStatus): V1TransactionStatus => V1_STATUS_OF[status];
