/**
 * The tests' GraphQL operations as typed documents (codegen.ts generates ./generated.ts from
 * ./*.graphql, one file per area, and the GraphiQL page's examples): a test that runs one gets its
 * answer typed by the schema, and an operation the schema no longer accepts fails codegen's check.
 * Only tests that send what the schema refuses, or measure the query text, send raw strings.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { expect } from 'vitest';
import { graphqlData, graphqlRefusal } from '../assertions.js';
import type { HttpResult, TestGateway } from '../gateway.js';
import { CreateOperatorTokenDocument, type OperatorRole } from './generated.js';

export interface TypedAnswer<Result> {
  status: number;
  data: Result | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

type Document<Result, Variables> = TypedDocumentNode<Result, Variables>;

/** A GraphQL answer's body: its data typed; its errors as loose as gateway.graphql's (tests read any field). */
export type TypedBody<Result> = { data: Result | null; errors?: any };

/** Sends `document` as `token` (none unless told, as gateway.graphql): the HTTP answer, its data typed. */
export function graphqlTyped<Result, Variables>(
  gateway: TestGateway,
  document: Document<Result, Variables>,
  variables: Variables,
  token?: string,
): Promise<HttpResult<TypedBody<Result>>> {
  return gateway.graphql(print(document), variables as Record<string, unknown>, token);
}

/** graphqlData (must succeed) for a typed document: its data, typed. */
export function graphqlDataTyped<Result, Variables>(
  gateway: TestGateway,
  document: Document<Result, Variables>,
  variables: Variables,
  token = gateway.adminToken,
): Promise<Result> {
  return graphqlData<Result>(gateway, print(document), variables as Record<string, unknown>, token);
}

/** graphqlRefusal (exactly one error, no data) for a typed document. */
export function graphqlRefusalTyped<Result, Variables>(
  gateway: TestGateway,
  document: Document<Result, Variables>,
  variables: Variables,
  token = gateway.adminToken,
) {
  return graphqlRefusal(gateway, print(document), variables as Record<string, unknown>, token);
}

/** Runs `document` with `variables` as `token` (an API key or an operator token). */
export async function runTyped<Result, Variables>(
  gateway: TestGateway,
  document: Document<Result, Variables>,
  variables: Variables,
  token: string,
): Promise<TypedAnswer<Result>> {
  const response = await graphqlTyped(gateway, document, variables, token);
  return { status: response.status, data: response.body.data ?? null, errors: response.body.errors };
}

/** A `node(id)` answer narrowed to the type the test expects (else the test fails), its fields typed. */
export function nodeOfType<Node extends { __typename: string }, Typename extends Node['__typename']>(
  node: Node | null,
  typename: Typename,
): Extract<Node, { __typename: Typename }> {
  expect(node?.__typename).toBe(typename);
  return node as Extract<Node, { __typename: Typename }>;
}

/** An operator token of `role`, issued by the bootstrap admin token. */
export async function issueOperatorToken(gateway: TestGateway, role: OperatorRole): Promise<string> {
  const { data, errors } = await runTyped(gateway, CreateOperatorTokenDocument, { role }, gateway.adminToken);
  if (!data) throw new Error(`could not issue a ${role} token: ${JSON.stringify(errors)}`);
  return data.createOperatorToken.token;
}
