/**
 * The wallets the gateway collects and pays out with, as data: one row per PaymentMethod (the
 * Prisma enum) says which gateway clearing account holds its money, its default collection fee
 * rate, and how it is named on each surface. A new method is a row here (the compiler refuses the
 * enum value without one), its clearing account and a provider, not a hunt for
 * `method === 'wave'`. Nothing else branches on a method's value.
 */
import type { GatewayAccount, PaymentMethod } from '../generated/prisma/enums.js';
import { PAYMENT_METHODS, isOneOf } from './enums.js';
import { DomainError } from './errors.js';

export interface PaymentMethodRow {
  /** The gateway account for what this method's provider owes us (payments in) or we owe it (refunds, payouts out). */
  clearingAccount: GatewayAccount;
  /**
   * The collection fee rate in basis points (1 bp = 0.01 %) of an organisation that set none of
   * its own for this method (Organization.collectionFeesBp, keyed by method).
   */
  defaultCollectionFeeBp: number;
  /** The name a payer reads on the checkout page. */
  displayName: string;
  /** The name REST v1 and the v1 webhook body use (uppercase). */
  v1Name: string;
  /** How the payout failure message names the provider ("failed at the orange provider level"). */
  payoutProviderName: string;
}

export const PAYMENT_METHOD_CATALOGUE = {
  wave: {
    clearingAccount: 'provider_clearing_wave',
    defaultCollectionFeeBp: 100,
    displayName: 'Wave',
    v1Name: 'WAVE',
    payoutProviderName: 'wave',
  },
  orange_money: {
    clearingAccount: 'provider_clearing_orange_money',
    defaultCollectionFeeBp: 150,
    displayName: 'Orange Money',
    v1Name: 'ORANGE_MONEY',
    payoutProviderName: 'orange',
  },
} as const satisfies Record<PaymentMethod, PaymentMethodRow>;

/** A method's row. Throws on a value that is not a method (a programming error, never a silent default). */
export function paymentMethodRow(method: PaymentMethod): PaymentMethodRow {
  if (!Object.hasOwn(PAYMENT_METHOD_CATALOGUE, method)) throw new Error(`no payment method catalogue row for ${JSON.stringify(method)}`);
  return PAYMENT_METHOD_CATALOGUE[method];
}

export function parsePaymentMethod(value: string): PaymentMethod {
  if (!isOneOf(PAYMENT_METHODS, value)) throw new DomainError('unsupported_payment_method');
  return value;
}

/** A list of methods as an operator types it (trimmed, blanks dropped, each once). */
export function parseMethodList(methods: string[] | null | undefined): PaymentMethod[] | undefined {
  if (methods === undefined || methods === null) return undefined;
  return [
    ...new Set(
      methods
        .map((method) => method.trim())
        .filter(Boolean)
        .map(parsePaymentMethod),
    ),
  ];
}

/**
 * REST v1 and the v1 webhook body spell methods in uppercase (the rows' v1Name): only the spelling
 * differs, which methods an organisation may use is decided elsewhere as for v2.
 */
export type V1MethodName = (typeof PAYMENT_METHOD_CATALOGUE)[PaymentMethod]['v1Name'];
const FROM_V1 = new Map(PAYMENT_METHODS.map((method) => [PAYMENT_METHOD_CATALOGUE[method].v1Name as string, method]));
/** Methods v1 clients know but this gateway has never offered: refused with that reason. */
const UNSUPPORTED_V1_NAMES = new Set(['FREE_MONEY', 'BANK']);

export const toV1MethodName = (method: PaymentMethod): V1MethodName => PAYMENT_METHOD_CATALOGUE[method].v1Name;

/** `WAVE` -> `wave`; `FREE_MONEY`, `BANK` and anything else: 400 `Unsupported payment method` with the reason. */
export function parseV1MethodName(name: string): PaymentMethod {
  const method = FROM_V1.get(name);
  if (method) return method;
  const supported = [...FROM_V1.keys()].join(' or ');
  const reason = UNSUPPORTED_V1_NAMES.has(name) ? `${name} is not supported by this gateway` : `${JSON.stringify(name.slice(0, 40))} is not a payment method`;
  throw new DomainError('unsupported_payment_method', '', { message: `Unsupported payment method: ${reason}. Use ${supported}.` });
}
