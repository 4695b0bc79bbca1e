/** The two wallets the gateway collects and pays out with. */
import type { PaymentMethod } from '../generated/prisma/enums.js';
import { PAYMENT_METHODS, isOneOf } from './enums.js';
import { DomainError } from './errors.js';

export function parsePaymentMethod(value: string): PaymentMethod {
  if (!isOneOf(PAYMENT_METHODS, value)) throw new DomainError('unsupported_payment_method');
  return value;
}

/** A list of methods as an operator types it (trimmed, blanks dropped, each once). */
export function parseMethodList(methods: string[] | null | undefined): PaymentMethod[] | undefined {
  if (methods === undefined || methods === null) return undefined;
  return [...new Set(methods.map((method) => method.trim()).filter(Boolean).map(parsePaymentMethod))];
}
