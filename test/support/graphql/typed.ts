/**
 * The tests' GraphQL operations as typed documents (codegen.ts generates ./generated.ts from
 * ./operations.graphql and the GraphiQL page's examples): a test that runs one gets its answer
 * typed by the schema, and an operation the schema no longer accepts fails codegen's check.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import type { TestGateway } from '../gateway.js';
import { CreateOperatorTokenDocument, type OperatorRole } from './generated.js';

export interface TypedAnswer<Result> {
  status: number;
  data: Result | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** Runs `document` with `variables` as `token` (an API key or an operator token). */
export async function runTyped<Result, Variables>(gateway: TestGateway, document: TypedDocumentNode<Result, Variables>, variables: Variables, token: string): Promise<TypedAnswer<Result>> {
  const response = await gateway.graphql(print(document), (variables ?? {}) as Record<string, unknown>, token);
  return { status: response.status, data: response.body.data ?? null, errors: response.body.errors };
}

/** An operator token of `role`, issued by the bootstrap admin token. */
export async function issueOperatorToken(gateway: TestGateway, role: OperatorRole): Promise<string> {
  const { data, errors } = await runTyped(gateway, CreateOperatorTokenDocument, { role }, gateway.adminToken);
  if (!data) throw new Error(`could not issue a ${role} token: ${JSON.stringify(errors)}`);
  return data.createOperatorToken.token;
}
