/**
 * Payout batches (docs/payouts.md#batch-payouts): the limits, and the validation of every line
 * before anything is sent. A line gets the rules a single payout gets (createPayout.ts: method,
 * amount greater than 10 XOF and within the organisation's cap, a phone), plus what only a batch
 * can check: the phone's format for the method's countries, duplicates inside the submission, and
 * the total (amounts + payout fees) against `main`'s balance.
 */
import type { Organization } from '../../generated/prisma/client.js';
import type { PaymentMethod } from '../../generated/prisma/enums.js';
import { DomainError } from '../errors.js';
import { payoutFeeOf } from '../ledger/fees.js';
import { MAXIMUM_AMOUNT, MINIMUM_AMOUNT_EXCLUSIVE } from '../money.js';
import { PAYMENT_METHODS } from '../enums.js';
import { PAYMENT_METHOD_CATALOGUE } from '../paymentMethods.js';
import { compactPhone } from '../phones.js';
import { boundedInputText, MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from '../text.js';

/** Items in one batch at most. */
export const MAX_BATCH_ITEMS = 5_000;
/** A CSV upload: its size and each line's length (a line of the header's seven fields is ~150 bytes). */
export const MAX_CSV_BYTES = 1024 * 1024;
export const MAX_CSV_LINE_LENGTH = 512;
/** A merchant's own reference of a line (kept, and in the results). */
const MAX_REFERENCE_LENGTH = 100;
/** Refused lines kept and shown at most (beyond: the count says how many more). */
const MAX_REPORTED_ERRORS = 1_000;

/** The CSV header, exactly (docs/payouts.md). */
const CSV_COLUMNS = ['method', 'amount', 'phone', 'first_name', 'last_name', 'reason', 'reference'] as const;

/**
 * Where each method pays out, as international prefixes and the national number's digits: the
 * XOF countries each wallet operates in (Wave: Senegal, Côte d'Ivoire, Mali, Burkina Faso; Orange
 * Money: those and Niger, Guinea-Bissau). A batch line's phone must be one of its method's.
 */
const PAYOUT_COUNTRIES: Record<PaymentMethod, readonly { prefix: string; digits: readonly number[] }[]> = {
  wave: [
    { prefix: '+221', digits: [9] },
    { prefix: '+225', digits: [10] },
    { prefix: '+223', digits: [8] },
    { prefix: '+226', digits: [8] },
  ],
  orange_money: [
    { prefix: '+221', digits: [9] },
    { prefix: '+225', digits: [10] },
    { prefix: '+223', digits: [8] },
    { prefix: '+226', digits: [8] },
    { prefix: '+227', digits: [8] },
    { prefix: '+245', digits: [9] },
  ],
};

/** One submitted line, as the surfaces read it (strings and numbers as given). */
export interface BatchLineInput {
  selectedPaymentMethod?: unknown;
  amount?: unknown;
  recipient?: { firstName?: unknown; lastName?: unknown; phone?: unknown } | null;
  reason?: unknown;
  reference?: unknown;
}

export interface BatchLineError {
  /** 1-based; 0 for the batch as a whole. */
  line: number;
  field: string;
  error: string;
}

export interface ValidItem {
  line: number;
  method: PaymentMethod;
  amount: bigint;
  fee: bigint;
  recipientFirstName: string | null;
  recipientLastName: string | null;
  recipientPhone: string;
  reason: string;
  reference: string | null;
}

export interface ValidatedBatch {
  items: ValidItem[];
  errors: BatchLineError[];
  itemCount: number;
  totalAmount: bigint;
  totalFees: bigint;
}

type LineCheck = { item: Omit<ValidItem, 'line' | 'fee'> } | { error: Omit<BatchLineError, 'line'> };

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

function checkLine(organization: Pick<Organization, 'maxPayoutAmount'>, input: BatchLineInput): LineCheck {
  const method = text(input.selectedPaymentMethod);
  if (!method) return { error: { field: 'method', error: 'the payment method is required' } };
  if (!(PAYMENT_METHODS as readonly string[]).includes(method)) return { error: { field: 'method', error: `unsupported payment method: ${method}` } };
  const amount = input.amount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) return { error: { field: 'amount', error: 'the amount must be a whole number of XOF' } };
  if (amount <= MINIMUM_AMOUNT_EXCLUSIVE) return { error: { field: 'amount', error: `the amount must be greater than ${MINIMUM_AMOUNT_EXCLUSIVE} XOF` } };
  const cap = organization.maxPayoutAmount ?? BigInt(MAXIMUM_AMOUNT);
  if (BigInt(amount) > cap) return { error: { field: 'amount', error: `the maximum payout amount for this organization is ${cap} XOF` } };
  const rawPhone = text(input.recipient?.phone);
  if (!rawPhone) return { error: { field: 'phone', error: 'the phone is required' } };
  const phone = compactPhone(rawPhone);
  const phoneError = phoneErrorOf(method as PaymentMethod, phone);
  if (phoneError) return { error: { field: 'phone', error: phoneError } };
  const bounded = (field: string, value: unknown, max: number): string | null | { error: Omit<BatchLineError, 'line'> } => {
    if (value !== undefined && value !== null && typeof value !== 'string') return { error: { field, error: `${field} must be text` } };
    const trimmed = text(value);
    if (trimmed && trimmed.length > max) return { error: { field, error: `${field} is longer than ${max} characters` } };
    return trimmed;
  };
  const firstName = bounded('first_name', input.recipient?.firstName, MAX_NAME_LENGTH);
  const lastName = bounded('last_name', input.recipient?.lastName, MAX_NAME_LENGTH);
  const reason = bounded('reason', input.reason, MAX_DESCRIPTION_LENGTH);
  const reference = bounded('reference', input.reference, MAX_REFERENCE_LENGTH);
  for (const value of [firstName, lastName, reason, reference]) if (value && typeof value === 'object') return value;
  return {
    item: {
      method: method as PaymentMethod,
      amount: BigInt(amount),
      recipientFirstName: firstName as string | null,
      recipientLastName: lastName as string | null,
      recipientPhone: phone,
      reason: (reason as string | null) ?? '',
      reference: reference as string | null,
    },
  };
}

/** Why `phone` cannot receive a payout by `method`, or null. */
function phoneErrorOf(method: PaymentMethod, phone: string): string | null {
  const countries = PAYOUT_COUNTRIES[method];
  const country = countries.find((one) => phone.startsWith(one.prefix));
  const where = countries.map((one) => one.prefix).join(', ');
  if (!country) return `${PAYMENT_METHOD_CATALOGUE[method].displayName} pays out to numbers starting with ${where}`;
  const national = phone.slice(country.prefix.length);
  if (!/^\d+$/.test(national) || !country.digits.includes(national.length))
    return `a ${country.prefix} number has ${country.digits.join(' or ')} digits after the prefix`;
  return null;
}

/** What makes two lines the same payout: a merchant's reference, else method, phone and amount. */
const duplicateKeysOf = (item: Omit<ValidItem, 'line' | 'fee'>): string[] => [
  `${item.method} ${item.recipientPhone} ${item.amount}`,
  ...(item.reference ? [`reference ${item.reference}`] : []),
];

/**
 * Every line checked, in order: the valid items (with their payout fees), the refused lines named
 * (at most MAX_REPORTED_ERRORS kept), and the totals. `mainBalance`: what `main` holds now; a total
 * (amounts + fees) above it is an error of the batch as a whole (line 0).
 */
export function validateBatch(organization: Organization, lines: readonly BatchLineInput[], mainBalance: bigint): ValidatedBatch {
  if (lines.length === 0) throw new DomainError('invalid_request_body', 'items must hold at least one payout');
  if (lines.length > MAX_BATCH_ITEMS) throw new DomainError('invalid_request_body', `a batch holds at most ${MAX_BATCH_ITEMS} items (got ${lines.length})`);
  const items: ValidItem[] = [];
  const errors: BatchLineError[] = [];
  const seen = new Map<string, number>();
  let totalAmount = 0n;
  let totalFees = 0n;
  lines.forEach((input, index) => {
    const line = index + 1;
    const checked = checkLine(organization, input);
    if ('error' in checked) {
      errors.push({ line, ...checked.error });
      return;
    }
    const earlier = duplicateKeysOf(checked.item)
      .map((key) => seen.get(key))
      .find((found) => found !== undefined);
    if (earlier !== undefined) {
      errors.push({ line, field: 'line', error: `duplicate of line ${earlier}` });
      return;
    }
    for (const key of duplicateKeysOf(checked.item)) seen.set(key, line);
    const fee = payoutFeeOf(organization, checked.item.amount);
    items.push({ line, ...checked.item, fee });
    totalAmount += checked.item.amount;
    totalFees += fee;
  });
  if (totalAmount + totalFees > mainBalance)
    errors.unshift({
      line: 0,
      field: 'total',
      error: `Insufficient balance: the valid lines need ${totalAmount + totalFees} XOF (amounts ${totalAmount} + fees ${totalFees}), main holds ${mainBalance} XOF`,
    });
  return { items, errors: errors.slice(0, MAX_REPORTED_ERRORS), itemCount: lines.length, totalAmount, totalFees };
}

/**
 * A CSV upload as lines (RFC 4180: quoted fields may hold commas and doubled quotes; not line
 * breaks). The header must be exactly CSV_COLUMNS; the size, each line's length and the item count
 * are bounded, each refusal saying which bound. Blank lines are skipped (not counted).
 */
export function parseBatchCsv(csv: string): BatchLineInput[] {
  if (Buffer.byteLength(csv, 'utf8') > MAX_CSV_BYTES) throw new DomainError('invalid_input', `the CSV file is larger than ${MAX_CSV_BYTES} bytes (1 MiB)`);
  // The text rule every stored text meets (no NUL, no lone surrogate), on the file as a whole: the
  // dashboard's upload brings it as raw text, which no JSON body check has seen.
  boundedInputText('the CSV file', csv, MAX_CSV_BYTES);
  const rows = csv.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = splitCsvLine(rows[0] ?? '', 1).map((name) => name.trim().toLowerCase());
  if (header.join(',') !== CSV_COLUMNS.join(',')) throw new DomainError('invalid_input', `the CSV header must be exactly ${CSV_COLUMNS.join(',')}`);
  const lines: BatchLineInput[] = [];
  rows.slice(1).forEach((row, index) => {
    if (row.trim() === '') return;
    const lineNumber = index + 2;
    if (row.length > MAX_CSV_LINE_LENGTH) throw new DomainError('invalid_input', `CSV line ${lineNumber} is longer than ${MAX_CSV_LINE_LENGTH} characters`);
    if (lines.length >= MAX_BATCH_ITEMS) throw new DomainError('invalid_input', `a batch holds at most ${MAX_BATCH_ITEMS} items`);
    const [method, amount, phone, firstName, lastName, reason, reference] = splitCsvLine(row, lineNumber);
    const trimmedAmount = (amount ?? '').trim();
    lines.push({
      selectedPaymentMethod: method,
      amount: /^\d+$/.test(trimmedAmount) ? Number(trimmedAmount) : trimmedAmount,
      recipient: { firstName, lastName, phone },
      reason,
      reference,
    });
  });
  return lines;
}

function splitCsvLine(row: string, lineNumber: number): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < row.length; index += 1) {
    const char = row[index]!;
    if (quoted) {
      if (char === '"' && row[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  if (quoted) throw new DomainError('invalid_input', `CSV line ${lineNumber} has an unclosed quote`);
  fields.push(field);
  return fields;
}
