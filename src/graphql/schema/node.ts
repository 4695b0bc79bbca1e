/**
 * The Relay `Node` interface (plugin-relay): Transaction, Payout, Organization, Account and Webhook
 * carry a global id, `nodeId`, and `node(nodeId)` loads any of them. `node` names no single
 * operation: each node type is authorised as its own read (NODE_OPERATIONS), in `nodeWhere`, before
 * anything is loaded, and a merchant's lookup is confined to its organisation, so another
 * organisation's object answers exactly like a missing one (null).
 */
import { decodeGlobalID as decodePothosGlobalID } from '@pothos/plugin-relay';
import { authorizeRead } from '../../domain/access/auth.js';
import { DomainError } from '../../domain/errors.js';
import type { Operation } from '../../domain/access/policy.js';
import { isUuid } from '../../domain/ids.js';
import type { GraphQLContext } from '../builder.js';

/** The read each node type is loaded as by `node(id)`: the policy decides who may. */
export const NODE_OPERATIONS = {
  Transaction: 'getTransaction',
  Payout: 'getPayout',
  Organization: 'getOrganization',
  Account: 'getAccount',
  Webhook: 'listWebhooks',
} as const satisfies Record<string, Operation>;

/** A UUID no row has: what an id that cannot be one looks up (answers null, as a missing row). */
const NO_ROW = '00000000-0000-0000-0000-000000000000';

/**
 * The unique lookup of a node: refused (the policy's error) when the caller may not run the type's
 * read; for a merchant, only its own organisation's row (Prisma's findUnique takes the extra
 * condition), so a foreign id finds nothing.
 */
export function nodeWhere(ctx: GraphQLContext, type: keyof typeof NODE_OPERATIONS, id: string): { id: string; organizationId?: string } {
  const access = authorizeRead(ctx.caller, NODE_OPERATIONS[type]);
  const rowId = isUuid(id) ? id : NO_ROW;
  // An organisation is its own scope: a merchant (were it ever allowed) finds only its own.
  if (type === 'Organization') return { id: access.organizationId === null || access.organizationId === rowId ? rowId : NO_ROW };
  return access.organizationId === null ? { id: rowId } : { id: rowId, organizationId: access.organizationId };
}

/**
 * A global id as `node(id)` reads it: base64 of `Type:uuid`. One that is not base64 of that shape,
 * or names a type that is no node ("a", "", "%00", base64 of junk), is the client's mistake: a
 * clear BAD_USER_INPUT error, never the 500 Pothos's own decoder surfaced as. A node type with an
 * id that cannot be a row's still answers null (nodeWhere).
 */
export function decodeNodeId(globalID: string): { typename: string; id: string } {
  let decoded: { typename: string; id: string };
  try {
    decoded = decodePothosGlobalID(globalID);
  } catch {
    throw new DomainError('invalid_global_id');
  }
  if (!Object.hasOwn(NODE_OPERATIONS, decoded.typename)) throw new DomainError('invalid_global_id');
  return decoded;
}
