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

/**
 * The names REST v1 and the v1 webhook body use (uppercase). One table for both: only the spelling
 * differs, which methods an organisation may use is decided elsewhere as for v2.
 */
const V1_NAMES = { wave: 'WAVE', orange_money: 'ORANGE_MONEY' } as const satisfies Record<PaymentMethod, string>;
export type V1MethodName = (typeof V1_NAMES)[PaymentMethod];
const FROM_V1 = new Map(Object.entries(V1_NAMES).map(([method, name]) => [name as string, method as PaymentMethod]));
/** Methods v1 clients know but this gateway has never offered: refused with that reason. */
const UNSUPPORTED_V1_NAMES = new Set(['FREE_MONEY', 'BANK']);

export const toV1MethodName = (method: PaymentMethod): V1MethodName => V1_NAMES[method];

/** `WAVE` -> `wave`; `FREE_MONEY`, `BANK` and anything else: 400 `Unsupported payment method` with the reason. */
export function parseV1MethodName(name: string): PaymentMethod {
  const method = FROM_V1.get(name);
  if (method) return method;
  const supported = [...FROM_V1.keys()].join(' or ');
  const reason = UNSUPPORTED_V1_NAMES.has(name) ? `${name} is not supported by this gateway` : `${JSON.stringify(name.slice(0, 40))} is not a payment method`;
  throw new DomainError('unsupported_payment_method', '', { message: `Unsupported payment method: ${reason}. Use ${supported}.` });
}
