/**
 * A refusal outside execution (the rate limit, a body refused before Yoga), as a GraphQL response
 * body. A module of its own: the HTTP host answers these without loading Yoga and the schema
 * (http/app.ts loads them when the server listens).
 */
import type { DomainError } from '../domain/errors.js';

export function graphqlErrorBody(error: DomainError): string {
  return JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.graphqlCode, status: error.status } }] });
}
