/**
 * The public NabooPay v1 clients as the gateway sees them on the wire: the exact requests each one
 * sends (method, path, query string encoding, body serialisation, headers) and JSON schemas of the
 * reply models each one parses the answers into. Written from reading the clients' public
 * sources (naboopay/naboopay-nodejs-sdk 2.0.0, naboopay/naboopay-python-sdk 1.0.2,
 * naboopay/naboo-python 0.1.0); no code of theirs is copied. A conformance test sends these
 * requests to a real gateway and validates every answer against these schemas, so a change that
 * would break a real client fails CI.
 */
import { request as httpRequest } from 'node:http';
import AjvModule, { type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

// Both are CommonJS modules whose class / function is their `default` export under NodeNext.
const Ajv = AjvModule.default;
const addFormats = ajvFormats.default;

export interface WireAnswer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request with exactly these headers and body bytes (no header added but Host and Content-Length). */
export function sendExactly(baseUrl: string, method: string, pathAndQuery: string, headers: Record<string, string>, body?: string): Promise<WireAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: pathAndQuery,
        headers: body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: response.headers });
        });
      },
    );
    outgoing.on('error', reject);
    if (body !== undefined) outgoing.write(body);
    outgoing.end();
  });
}

/** Python's json.dumps with its defaults: ", " and ": " separators, non-ASCII escaped as \uXXXX. */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([name, item]) => `${pythonJsonDumps(name)}: ${pythonJsonDumps(item)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}

/** Python's urllib.parse.urlencode (what requests does with `params=`): quote_plus, so ":" is %3A and "+" is %2B. */
export const pythonUrlencode = (params: [string, string][]) =>
  params
    .map(
      ([name, value]) =>
        `${encodeURIComponent(name)}=${encodeURIComponent(value)
          .replace(/%20/g, '+')
          .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    )
    .join('&');

/** axios 1.x's params serialiser: encodeURIComponent, then ":", "$", ",", "+", "[", "]" and "%20" (as "+") put back raw. */
export const axiosParams = (params: [string, string][]) =>
  params
    .map(
      ([name, value]) =>
        `${name}=${encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%24/g, '$').replace(/%2C/gi, ',').replace(/%20/g, '+').replace(/%5B/gi, '[').replace(/%5D/gi, ']')}`,
    )
    .join('&');

/**
 * Python's uuid.UUID(text) accepts: after removing "urn:" and "uuid:", stripping braces and
 * removing hyphens, exactly 32 hexadecimal digits.
 */
function pythonUuidAccepts(text: string): boolean {
  const hex = text
    .replace(/urn:/g, '')
    .replace(/uuid:/g, '')
    .replace(/^[{}]+|[{}]+$/g, '')
    .replace(/-/g, '');
  return /^[0-9a-fA-F]{32}$/.test(hex);
}

/**
 * The key check of the official Python SDK 1.0.2's constructor, as its source behaves: it takes
 * the text between the first and the second "naboo-" (an IndexError when there is none) and
 * raises ValueError when that text IS a UUID (the condition is inverted from its message's intent).
 */
/** What that constructor prints to stdout of the key: the text after the first "naboo-". */
export const pythonSdkPrintsOfKey = (key: string): string | undefined => key.split('naboo-')[1];

export function pythonSdkAcceptsKey(key: string): boolean {
  const parts = key.split('naboo-');
  if (parts.length < 2) return false; // IndexError
  return !pythonUuidAccepts(parts[1]!);
}

// -------------------------------------------------------------------------------------------------
// Reply models as JSON schemas (draft-07). Extra fields are allowed: none of the three clients
// refuses a field it does not model (pydantic's default ignores extras, the generated client
// picks the fields it knows, the Node SDK copies the ones it names).
// -------------------------------------------------------------------------------------------------

const str = { type: 'string' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const dateTime = { type: 'string', format: 'date-time' };
const object = (required: string[], properties: Record<string, unknown>, optional: Record<string, unknown> = {}) => ({
  type: 'object',
  required,
  properties: { ...properties, ...optional },
});

/** The transaction status enum all three clients share. */
const TRANSACTION_STATUS = { enum: ['pending', 'paid', 'done', 'part_paid'] };

/** Official Python SDK `naboopay` 1.0.2 (pydantic 2, lax mode: types as pydantic coerces them). */
export function pythonSdkSchemas() {
  const wallet = { enum: ['WAVE', 'ORANGE_MONEY', 'FREE_MONEY', 'BANK'] };
  const product = object(['name', 'category', 'amount', 'quantity', 'description'], { name: str, category: str, amount: int, quantity: int, description: str });
  const getOneTransaction = object(
    [
      'order_id',
      'method_of_payment',
      'amount',
      'amount_to_pay',
      'currency',
      'created_at',
      'transaction_status',
      'is_done',
      'is_escrow',
      'is_merchant',
      'checkout_url',
    ],
    {
      order_id: str,
      method_of_payment: { type: 'array', items: wallet },
      amount: int,
      amount_to_pay: int,
      currency: str,
      created_at: dateTime,
      transaction_status: TRANSACTION_STATUS,
      products: { anyOf: [{ type: 'null' }, { type: 'array', items: product }] },
      is_done: bool,
      is_escrow: bool,
      is_merchant: bool,
      checkout_url: str,
    },
  );
  return {
    TransactionResponse: object(['order_id', 'method_of_payment', 'currency', 'created_at', 'checkout_url'], {
      order_id: str,
      method_of_payment: { type: 'array', items: str },
      amount: int,
      amount_to_pay: int,
      currency: str,
      created_at: dateTime,
      transaction_status: str,
      is_escrow: bool,
      is_merchant: bool,
      checkout_url: str,
    }),
    GetOneTransaction: getOneTransaction,
    GetAllTransaction: object(['transactions'], { transactions: { type: 'array', items: getOneTransaction } }),
    DeleteTransactionResponse: object(['order_id', 'message'], { order_id: str, message: str }),
    GetAccountResponse: object(['account_number', 'balance', 'account_is_activate', 'method_of_payment', 'loyalty_credit'], {
      account_number: str,
      balance: { type: 'number' },
      account_is_activate: bool,
      method_of_payment: wallet,
      loyalty_credit: int,
    }),
    CashOutResponse: object(['phone_number', 'amount', 'full_name', 'status'], { phone_number: str, amount: int, full_name: str, status: TRANSACTION_STATUS }),
  };
}

/** NabooPay's generated client `naboo-python` 0.1.0 (pydantic 2 with Strict* types: no coercion at all). */
export function generatedClientSchemas() {
  const wallet = { enum: ['WAVE', 'ORANGE_MONEY', 'FREE_MONEY'] };
  const product = object(['name', 'category', 'amount', 'quantity', 'description'], { name: str, category: str, amount: int, quantity: int, description: str });
  const getOneTransaction = object(
    [
      'order_id',
      'method_of_payment',
      'amount',
      'amount_to_pay',
      'currency',
      'created_at',
      'transaction_status',
      'is_done',
      'is_escrow',
      'is_merchant',
      'checkout_url',
    ],
    {
      order_id: str,
      method_of_payment: { type: 'array', items: wallet },
      amount: int,
      amount_to_pay: int,
      currency: str,
      created_at: str,
      transaction_status: TRANSACTION_STATUS,
      products: { anyOf: [{ type: 'null' }, { type: 'array', items: product }] },
      is_done: bool,
      is_escrow: bool,
      is_merchant: bool,
      checkout_url: str,
    },
  );
  return {
    TransactionResponse: object(['order_id', 'method_of_payment', 'currency', 'created_at', 'checkout_url'], {
      order_id: str,
      method_of_payment: { type: 'array', items: str },
      amount: int,
      amount_to_pay: int,
      currency: str,
      created_at: str,
      transaction_status: str,
      is_escrow: bool,
      is_merchant: bool,
      checkout_url: str,
    }),
    GetOneTransaction: getOneTransaction,
    GetAllTransaction: object(['transactions'], { transactions: { type: 'array', items: getOneTransaction } }),
    DeleteTransactionResponse: object(['order_id', 'message'], { order_id: str, message: str }),
    GetAccountResponse: object(['account_number', 'balance', 'account_is_activate', 'method_of_payment', 'loyalty_credit'], {
      account_number: str,
      balance: { type: 'number' },
      account_is_activate: bool,
      method_of_payment: wallet,
      loyalty_credit: int,
    }),
    CashOutResponse: object(['phone_number', 'amount', 'full_name', 'status'], { phone_number: str, amount: int, full_name: str, status: TRANSACTION_STATUS }),
  };
}

/**
 * Official Node SDK `naboopay` 2.0.0 (TypeScript; its model classes copy the fields without
 * checking them). The schemas are its declared types, except where it does not check at run time
 * and the gateway deliberately differs: the account's `method_of_payment` (typed Wallet[], one
 * value here so that both Python clients work; the SDK hands it through untouched).
 */
export function nodeSdkSchemas() {
  const wallet = { enum: ['WAVE', 'ORANGE_MONEY', 'FREE_MONEY', 'BANK'] };
  const product = object(['name', 'category', 'amount', 'quantity', 'description'], {
    name: str,
    category: str,
    amount: { type: 'number' },
    quantity: { type: 'number' },
    description: str,
  });
  const rawTransaction = object(['order_id', 'method_of_payment', 'created_at'], {
    order_id: str,
    method_of_payment: { type: 'array', items: wallet },
    amount: { type: 'number' },
    amount_to_pay: { type: 'number' },
    currency: str,
    created_at: dateTime,
    transaction_status: TRANSACTION_STATUS,
    is_escrow: bool,
    is_merchant: bool,
    checkout_url: str,
    products: { type: 'array', items: product },
    is_done: bool,
  });
  return {
    TransactionResponse: rawTransaction,
    GetOneTransaction: rawTransaction,
    GetAllTransaction: object(['transactions'], { transactions: { type: 'array', items: rawTransaction } }),
    DeleteTransactionResponse: object(['order_id', 'message'], { order_id: str, message: str }),
    GetAccountResponse: object(['account_number', 'balance', 'account_is_activate', 'method_of_payment', 'loyalty_credit'], {
      account_number: str,
      balance: { type: 'number' },
      account_is_activate: bool,
      method_of_payment: { description: 'typed Wallet[]; not checked at run time' },
      loyalty_credit: { type: 'number' },
    }),
    CashOutResponse: object(['phone_number', 'amount', 'full_name', 'status'], { phone_number: str, amount: { type: 'number' }, full_name: str, status: str }),
  };
}

export type ReplyModel = keyof ReturnType<typeof pythonSdkSchemas>;

/** Compiles a client's schemas once. */
export function compileModels(schemas: Record<ReplyModel, object>): Record<ReplyModel, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, ajv.compile(schema)])) as Record<ReplyModel, ValidateFunction>;
}
