/**
 * Field-level authorisation comes from the one access policy, for every field of the schema.
 *
 * 1. The built schema, walked: every root field (Query, Mutation, Subscription) names its policy
 *    operation (`authScopes: { run }`), except `node`, which authorises each node type as its read
 *    (NODE_OPERATIONS); every other field either names one too or is a plain attribute of its
 *    already-authorised parent (no arguments, not a relation to other rows).
 * 2. Every principal (a merchant key of each scope, each operator role, a dashboard user of each
 *    role signed in with a session cookie and its X-CSRF-Token) runs every query and
 *    mutation over HTTP, subscribes to every subscription (Server-Sent Events), and every field naming an operation on a node type through `node(id)`:
 *    it is refused with the policy's refusal exactly when `mayRun(principal, operation)` says so.
 *    (A field naming an operation on a type no node reaches, such as the secret of an issued token,
 *    is checked by the walk: its operation is a row of the policy.)
 *
 * Generic: fields other engineers add appear in the walk and the sweep without edits here.
 * Arguments are made up so that an allowed mutation stops at validation or "not found" (a zero
 * amount, a random id) and changes nothing of consequence.
 */
import { randomUUID } from 'node:crypto';
import {
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/domain/access/caller.js';
import { ACCESS_POLICY, mayRun, type Operation } from '../../../src/domain/access/policy.js';
import { DomainError } from '../../../src/domain/errors.js';
import { createOperatorToken, createWebhook } from '../../../src/domain/operations.js';
import type { OrganizationRecord } from '../../../src/domain/organizations/store.js';
import { NODE_OPERATIONS } from '../../../src/graphql/schema/node.js';
import { schema } from '../../../src/graphql/schema/index.js';
import { NodeIdsOfEachTypeDocument } from '../../support/graphql/generated.js';
import { graphqlDataTyped } from '../../support/graphql/typed.js';
import { useGateway } from '../../support/gateway.js';
import { subscribe } from '../../support/sse.js';
import { pendingTransaction, sandboxPay } from '../../support/accounts.js';
import { fundedMerchant, payoutBody, postPayout } from '../../support/payouts.js';
import { signedIn } from '../../support/dashboard.js';
import { httpRequest } from '../../support/http.js';

const gateway = useGateway({ webhooks: { allowPrivateUrls: true } });
// Raw query text: every operation is built from the schema itself, so no typed document could list them.

const MERCHANT_SCOPES = ['checkout', 'read', 'write', 'readAndWrite', 'payout', 'management'] as const;
const OPERATOR_ROLES = ['admin', 'analyst', 'support'] as const;
/** The owner first: an organisation's first user is its owner. */
const USER_ROLES = ['owner', 'developer', 'operations', 'viewer'] as const;
const ROOTS = ['Query', 'Mutation', 'Subscription'];
/** How long an open subscription must stay without a refusal to count as allowed (a refusal comes at once). */
const SUBSCRIPTION_QUIET_MS = 300;

/** What a field names: its policy operation, if any. */
const operationOf = (field: GraphQLField<unknown, unknown>): Operation | undefined =>
  (field.extensions?.pothosOptions as { authScopes?: { run?: Operation } } | undefined)?.authScopes?.run;

const isRelation = (field: GraphQLField<unknown, unknown>): boolean => field.extensions?.pothosPrismaRelationField !== undefined;

function objectTypes(): GraphQLObjectType[] {
  return Object.values(schema.getTypeMap()).filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'));
}

/** The policy's refusals, as GraphQL renders them. */
const REFUSALS = [new DomainError('permission_denied'), new DomainError('operator_forbidden')].map((error) => error.message);
const refusedByPolicy = (body: { errors?: { message: string; extensions?: { code?: string } }[] }): boolean =>
  (body.errors ?? []).some((error) => error.extensions?.code === 'FORBIDDEN' && REFUSALS.includes(error.message));

interface Principal {
  name: string;
  token: string;
  /** A dashboard user's session: its cookie and X-CSRF-Token instead of a bearer token. */
  headers?: Record<string, string>;
  caller: Caller;
}

/** A GraphQL request as the principal: its bearer token, or its session's cookie and CSRF token. */
async function graphqlAs(principal: Principal, query: string, variables: Record<string, unknown>): Promise<{ status: number; body: any }> {
  if (!principal.headers) return gateway.graphql(query, variables, principal.token);
  const response = await httpRequest(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...principal.headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: JSON.parse(response.text) };
}

let organization: OrganizationRecord;
const principals: Principal[] = [];
const nodeIds: Record<string, string> = {};

/** A value of `type` that passes GraphQL's own validation; ids are random (nothing found), amounts zero (refused by the domain). */
function inputValueOf(type: GraphQLInputType, name: string): unknown {
  if (isNonNullType(type)) return inputValueOf(type.ofType, name);
  if (isListType(type)) return [inputValueOf(type.ofType, name)];
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((field) => isNonNullType(field.type) && field.defaultValue === undefined)
        .map((field) => [field.name, inputValueOf(field.type, field.name)]),
    );
  }
  if (name === 'organizationId') return organization.id;
  switch (type.name) {
    case 'ID':
      return randomUUID();
    case 'String':
      return 'x';
    case 'Boolean':
      // setSwitch(on: true) leaves a switch as it is.
      return true;
    case 'DateTime':
      return new Date(0).toISOString();
    default:
      return 0;
  }
}

/** `name(arg: $arg...)` with a variable per required argument, and the variables' declarations and values. */
function callOf(field: GraphQLField<unknown, unknown>) {
  const required = field.args.filter((arg: GraphQLArgument) => isNonNullType(arg.type) && arg.defaultValue === undefined);
  const declarations = required.map((arg) => `$${arg.name}: ${String(arg.type)}`);
  const call = required.length ? `${field.name}(${required.map((arg) => `${arg.name}: $${arg.name}`).join(', ')})` : field.name;
  const variables = Object.fromEntries(required.map((arg) => [arg.name, inputValueOf(arg.type, arg.name)]));
  const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
  return { declarations, call: call + selection, variables };
}

beforeAll(async () => {
  organization = (await fundedMerchant(gateway, { scope: 'readAndWrite', escrowEnabled: true })).organization;
  for (const scope of MERCHANT_SCOPES) {
    const token = await gateway.createKey(organization.id, scope);
    principals.push({ name: `merchant key (${scope})`, token, caller: { kind: 'merchant', apiKeyId: '', scope, organization } });
  }
  for (const role of OPERATOR_ROLES) {
    const token = role === 'admin' ? gateway.adminToken : (await createOperatorToken(gateway.ctx, gateway.operator, role)).secret;
    principals.push({ name: `operator (${role})`, token, caller: { kind: 'operator', role, tokenId: null } });
  }
  for (const role of USER_ROLES) {
    const browser = await signedIn(gateway, organization.id, role);
    principals.push({
      name: `dashboard user (${role})`,
      token: '',
      headers: { cookie: `gateway_session=${browser.cookie}`, 'x-csrf-token': browser.csrfToken },
      caller: { kind: 'merchantUser', userId: '', email: browser.email, role, organization, sessionId: '' },
    });
  }

  // One object of each node type, of the merchant's organisation.
  const readAndWrite = principals.find((principal) => principal.name === 'merchant key (readAndWrite)')!.token;
  const orderId = await pendingTransaction(gateway, readAndWrite);
  await sandboxPay(gateway, orderId);
  const payout = await postPayout(gateway, principals.find((principal) => principal.name === 'merchant key (payout)')!.token, payoutBody({ amount: 1_000 }));
  expect(payout.status, JSON.stringify(payout.body)).toBe(200);
  const webhook = await createWebhook(gateway.ctx, gateway.operator, { organizationId: organization.id, url: 'http://127.0.0.1:9/hooks', version: 'v2' });
  const ids = await graphqlDataTyped(gateway, NodeIdsOfEachTypeDocument, {
    orderId,
    payoutId: payout.body.order_id,
    organizationId: organization.id,
    accountId: organization.accounts[0]!.id,
  });
  Object.assign(nodeIds, {
    Transaction: ids.transaction.nodeId,
    Payout: ids.payout.nodeId,
    Organization: ids.organization.nodeId,
    Account: ids.account.nodeId,
    Webhook: ids.webhooks.find((listed: { id: string }) => listed.id === webhook.webhook.id)!.nodeId,
  });
}, 60_000);

describe('the schema, walked', () => {
  it('names a policy operation on every root field (node: one read per node type)', () => {
    const missing: string[] = [];
    for (const root of ROOTS) {
      const type = schema.getType(root);
      if (!type || !isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (root === 'Query' && field.name === 'node') continue;
        const operation = operationOf(field);
        if (!operation || !(operation in ACCESS_POLICY)) missing.push(`${root}.${field.name}`);
      }
    }
    expect(missing).toEqual([]);
    const nodeTypes = objectTypes()
      .filter((type) => type.getInterfaces().some((iface) => iface.name === 'Node'))
      .map((type) => type.name);
    expect(nodeTypes.sort()).toEqual(Object.keys(NODE_OPERATIONS).sort());
  });

  it('names a policy operation on every other field that reads beyond its parent (arguments, relations); the rest are plain attributes', () => {
    const unnamed: string[] = [];
    const unknown: string[] = [];
    for (const type of objectTypes()) {
      if (ROOTS.includes(type.name)) continue;
      for (const field of Object.values(type.getFields())) {
        const operation = operationOf(field);
        if (operation) {
          if (!(operation in ACCESS_POLICY)) unknown.push(`${type.name}.${field.name}: ${operation}`);
        } else if (field.args.length > 0 || isRelation(field)) {
          unnamed.push(`${type.name}.${field.name}`);
        }
      }
    }
    expect(unknown).toEqual([]);
    expect(unnamed).toEqual([]);
  });
});

describe('every principal, every field', () => {
  it('runs every query and mutation exactly when the policy lets it run the field’s operation', async () => {
    const mismatches: string[] = [];
    let swept = 0;
    for (const root of ['Query', 'Mutation']) {
      const type = schema.getType(root) as GraphQLObjectType;
      for (const field of Object.values(type.getFields())) {
        const operation = operationOf(field);
        if (!operation) continue;
        const { declarations, call, variables } = callOf(field);
        const document = `${root === 'Query' ? 'query' : 'mutation'}${declarations.length ? `(${declarations.join(', ')})` : ''} { ${call} }`;
        for (const principal of principals) {
          const response = await graphqlAs(principal, document, variables);
          expect(response.status, `${principal.name} ${document}: ${JSON.stringify(response.body)}`).toBeLessThan(500);
          const allowed = !refusedByPolicy(response.body);
          swept += 1;
          if (allowed !== mayRun(principal.caller, operation)) {
            mismatches.push(
              `${principal.name} ${root}.${field.name} (${operation}): ${allowed ? 'allowed' : 'refused'} ${JSON.stringify(response.body.errors ?? [])}`,
            );
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    // Every principal met every named root field (a sweep of nothing proves nothing).
    expect(swept).toBeGreaterThan(principals.length * 40);
  }, 120_000);

  it('subscribes to every subscription exactly when the policy lets it run the field’s operation', async () => {
    const type = schema.getSubscriptionType();
    const mismatches: string[] = [];
    for (const field of Object.values(type?.getFields() ?? {})) {
      const operation = operationOf(field);
      if (!operation) continue;
      const { declarations, call, variables } = callOf(field);
      const document = `subscription${declarations.length ? `(${declarations.join(', ')})` : ''} { ${call} }`;
      // Every principal at once: each allowed one waits SUBSCRIPTION_QUIET_MS, and those waits overlap.
      await Promise.all(
        principals.map(async (principal) => {
          const subscription = await subscribe(gateway.url, document, variables, principal.token || undefined, principal.headers);
          try {
            expect(subscription.status, `${principal.name} ${document}`).toBeLessThan(500);
            // Refused: a JSON answer, or a first event carrying the refusal; allowed: an open stream, quiet until something changes.
            const first = subscription.body ?? (await subscription.quiet(SUBSCRIPTION_QUIET_MS))[0]?.payload ?? {};
            const allowed = !refusedByPolicy(first);
            if (allowed !== mayRun(principal.caller, operation))
              mismatches.push(`${principal.name} Subscription.${field.name} (${operation}): ${allowed ? 'allowed' : 'refused'} ${JSON.stringify(first)}`);
          } finally {
            subscription.close();
          }
        }),
      );
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('reads every field naming an operation on a node type exactly when the policy lets it read the node and run the field’s operation', async () => {
    const mismatches: string[] = [];
    let swept = 0;
    for (const [typeName, nodeOperation] of Object.entries(NODE_OPERATIONS) as [keyof typeof NODE_OPERATIONS, Operation][]) {
      const type = schema.getType(typeName) as GraphQLObjectType;
      for (const field of Object.values(type.getFields())) {
        const operation = operationOf(field);
        if (!operation) continue;
        const { declarations, call, variables } = callOf(field);
        const document = `query($id: ID!${declarations.length ? `, ${declarations.join(', ')}` : ''}) { node(id: $id) { ... on ${typeName} { ${call} } } }`;
        for (const principal of principals) {
          const response = await graphqlAs(principal, document, { ...variables, id: nodeIds[typeName] });
          expect(response.status, `${principal.name} ${document}: ${JSON.stringify(response.body)}`).toBeLessThan(500);
          const refused = refusedByPolicy(response.body);
          // Allowed: the node and its field answered; refused: the policy's refusal, nothing else.
          if (!refused) expect(response.body.errors, `${principal.name} ${document}`).toBeUndefined();
          if (!refused) expect(response.body.data.node, `${principal.name} ${document}`).not.toBeNull();
          swept += 1;
          const expected = mayRun(principal.caller, nodeOperation) && mayRun(principal.caller, operation);
          if (!refused !== expected)
            mismatches.push(`${principal.name} ${typeName}.${field.name} (${nodeOperation} + ${operation}): ${refused ? 'refused' : 'allowed'}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(swept).toBeGreaterThan(principals.length * 10);
  }, 120_000);
});
