/**
 * Operator CLI (`npx gateway <command>`): a thin client of the GraphQL admin API at GATEWAY_URL,
 * acting with the token in GATEWAY_ADMIN_TOKEN. Every command prints ONE JSON object on stdout and
 * exits 0; any failure prints {"error": "..."} on stdout and exits 1, so scripts can always parse
 * the output and branch on the exit code.
 */
import { parseArgs } from 'node:util';
import { ClientError, GraphQLClient } from 'graphql-request';
import {
  AdjustAccountDocument,
  ApiKeysDocument,
  ApprovePayoutDocument,
  CreateApiKeyDocument,
  CreateWebhookDocument,
  CreateOrganizationDocument,
  CreateOperatorTokenDocument,
  InviteMemberDocument,
  OrganizationDocument,
  OrganizationsDocument,
  OpenProviderCallsDocument,
  ReconcileProviderDocument,
  OperatorTokensDocument,
  RedeliverWebhookDocument,
  RejectPayoutDocument,
  ReleaseEscrowDocument,
  RevokeApiKeyDocument,
  RevokeOperatorTokenDocument,
  SandboxPayDocument,
  SetSwitchDocument,
  SettleProviderCallDocument,
  UpdateOrganizationDocument,
  type ApiScope,
  type MerchantRole,
  type OperatorRole,
  type OrganizationStatus,
  type PaymentMethod,
  type ProviderCallKind,
  type ProviderCallOutcome,
  type SwitchName,
  type UpdateOrganizationInput,
  type WebhookVersion,
} from './generated/graphql.js';

const DEFAULT_URL = 'http://127.0.0.1:3000';
/** A gateway that accepts the connection but never answers must not hang a script forever. */
const TIMEOUT_MS = 30_000;

type Env = Record<string, string | undefined>;
/** Commands build their client only after their arguments are valid (bad flags beat a missing token). */
type Connect = () => GraphQLClient;

/** A mistake on the command line: reported with the command's usage. */
class UsageError extends Error {}

// Every value of a schema enum, for validating arguments before sending them. `Record<Enum, true>`
// stops compiling when the schema (hence the generated types) adds or drops a value.
const values = <T extends string>(record: Record<T, true>) => Object.keys(record) as T[];
const SCOPES = values<ApiScope>({ checkout: true, management: true, payout: true, read: true, readAndWrite: true, write: true });
const ROLES = values<OperatorRole>({ admin: true, analyst: true, support: true });
const MEMBER_ROLES = values<MerchantRole>({ owner: true, developer: true, operations: true, viewer: true });
const STATUSES = values<OrganizationStatus>({ active: true, inactive: true, blocked: true });
const METHODS = values<PaymentMethod>({ wave: true, orange_money: true });
const SWITCHES = values<SwitchName>({ transactions: true, payouts: true, wave: true, orange_money: true });
const WEBHOOK_VERSIONS = values<WebhookVersion>({ v1: true, v2: true });
const CALL_KINDS = values<ProviderCallKind>({ PAYMENT: true, REFUND: true, PAYOUT: true, LATE_PAYMENT_RETURN: true }).map((kind) => kind.toLowerCase());
const CALL_OUTCOMES = values<ProviderCallOutcome>({ SUCCEEDED: true, FAILED: true }).map((outcome) => outcome.toLowerCase());

const COMMANDS = {
  'org create': {
    usage: 'org create --name NAME [--verified] [--escrow] [--payouts] [--methods wave,orange_money] [--sector SECTOR]',
    run: orgCreate,
  },
  'org list': { usage: `org list [--page N] [--limit N] [--status ${STATUSES.join('|')}] [--search TEXT]`, run: orgList },
  'org get': { usage: 'org get ID', run: orgGet },
  'org update': {
    usage:
      'org update ID [--status active|inactive|blocked] [--verified true|false] [--escrow true|false] [--payouts true|false] ' +
      '[--methods LIST] [--sector S] [--min-amount N|none] [--max-amount N|none] [--max-payout N|none]',
    run: orgUpdate,
  },
  'key create': { usage: `key create --org ID --scope ${SCOPES.join('|')} [--format gateway|naboo]`, run: keyCreate },
  'key list': { usage: 'key list --org ID', run: keyList },
  'key revoke': { usage: 'key revoke KEY_ID', run: keyRevoke },
  'operator-token create': { usage: `operator-token create --role ${ROLES.join('|')}`, run: operatorTokenCreate },
  'operator-token list': { usage: 'operator-token list', run: operatorTokenList },
  'operator-token revoke': { usage: 'operator-token revoke ID', run: operatorTokenRevoke },
  'user invite': { usage: `user invite --org ID --email E [--role ${MEMBER_ROLES.join('|')}]`, run: userInvite },
  'switch set': { usage: `switch set ${SWITCHES.join('|')} on|off`, run: switchSet },
  'sandbox pay': { usage: `sandbox pay ORDER_ID [--method ${METHODS.join('|')}] [--phone P]`, run: sandboxPay },
  'escrow release': { usage: 'escrow release ORDER_ID', run: escrowRelease },
  'account adjust': { usage: 'account adjust --org ID --amount N --reason R', run: accountAdjust },
  'payout approve': { usage: 'payout approve ORDER_ID', run: payoutApprove },
  'payout reject': { usage: 'payout reject ORDER_ID [--reason R]', run: payoutReject },
  'webhook create': { usage: `webhook create --org ID --url URL [--version ${WEBHOOK_VERSIONS.join('|')}]`, run: webhookCreate },
  'webhook redeliver': { usage: 'webhook redeliver DELIVERY_ID', run: webhookRedeliver },
  reconcile: { usage: `reconcile --method ${METHODS.join('|')} [--from DATE --to DATE]`, run: reconcile },
  'provider-call list': { usage: `provider-call list [--kind ${CALL_KINDS.join('|')}] [--stuck]`, run: providerCallList },
  'provider-call settle': {
    usage: `provider-call settle ${CALL_KINDS.join('|')} ID --outcome ${CALL_OUTCOMES.join('|')} --reason R`,
    run: providerCallSettle,
  },
} satisfies Record<string, { usage: string; run: (argv: string[], connect: Connect) => Promise<object> }>;
type CommandName = keyof typeof COMMANDS;

// --- commands ---------------------------------------------------------------------------------

async function orgCreate(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      verified: { type: 'boolean' },
      escrow: { type: 'boolean' },
      payouts: { type: 'boolean' },
      methods: { type: 'string' },
      sector: { type: 'string' },
    },
  });
  if (!flags.name) throw new UsageError('--name is required');
  const { createOrganization } = await connect().request(CreateOrganizationDocument, {
    input: {
      name: flags.name,
      verified: flags.verified,
      escrowEnabled: flags.escrow,
      payoutEnabled: flags.payouts,
      allowedMethods: flags.methods === undefined ? undefined : methods(flags.methods),
      // Left out, the server applies "general"; an empty string is sent as is and clears it.
      businessSector: flags.sector,
    },
  });
  return createOrganization;
}

async function orgList(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({
    args: argv,
    options: { page: { type: 'string' }, limit: { type: 'string' }, status: { type: 'string' }, search: { type: 'string' } },
  });
  // Ranges (page from 1, limit capped at 100...) are the gateway's rules: only the shape is checked here.
  const { organizations } = await connect().request(OrganizationsDocument, {
    page: flags.page === undefined ? undefined : integer('--page', flags.page),
    limit: flags.limit === undefined ? undefined : integer('--limit', flags.limit),
    status: flags.status === undefined ? undefined : oneOf('--status', flags.status, STATUSES),
    search: flags.search,
  });
  return { organizations: organizations.organizations, pagination: organizations.pagination };
}

async function orgGet(argv: string[], connect: Connect) {
  const [id] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['ID']);
  const { organization } = await connect().request(OrganizationDocument, { id });
  return organization;
}

async function orgUpdate(argv: string[], connect: Connect) {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      verified: { type: 'string' },
      escrow: { type: 'string' },
      payouts: { type: 'string' },
      methods: { type: 'string' },
      sector: { type: 'string' },
      'min-amount': { type: 'string' },
      'max-amount': { type: 'string' },
      'max-payout': { type: 'string' },
    },
  });
  const [id] = expectPositionals(positionals, ['ID']);
  // Only the flags given are sent: an omitted field leaves the organisation's value alone.
  const input: UpdateOrganizationInput = {
    status: flags.status === undefined ? undefined : oneOf('--status', flags.status, STATUSES),
    verified: flags.verified === undefined ? undefined : boolean('--verified', flags.verified),
    escrowEnabled: flags.escrow === undefined ? undefined : boolean('--escrow', flags.escrow),
    payoutEnabled: flags.payouts === undefined ? undefined : boolean('--payouts', flags.payouts),
    allowedMethods: flags.methods === undefined ? undefined : methods(flags.methods),
    businessSector: flags.sector,
    minTransactionAmount: flags['min-amount'] === undefined ? undefined : amount('--min-amount', flags['min-amount']),
    maxTransactionAmount: flags['max-amount'] === undefined ? undefined : amount('--max-amount', flags['max-amount']),
    maxPayoutAmount: flags['max-payout'] === undefined ? undefined : amount('--max-payout', flags['max-payout']),
  };
  if (Object.values(input).every((value) => value === undefined)) throw new UsageError('nothing to update: give at least one flag');
  const { updateOrganization } = await connect().request(UpdateOrganizationDocument, { id, input });
  return updateOrganization;
}

async function keyCreate(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { org: { type: 'string' }, scope: { type: 'string' }, format: { type: 'string' } } });
  if (!flags.org) throw new UsageError('--org is required');
  if (flags.scope === undefined) throw new UsageError('--scope is required');
  const scope = oneOf('--scope', flags.scope, SCOPES);
  // naboo: a key the official NabooPay Python SDK accepts (gw_sk_..._naboo-v1); see createApiKey.
  const format = flags.format === undefined ? undefined : ({ gateway: 'GATEWAY', naboo: 'NABOO' } as const)[oneOf('--format', flags.format, ['gateway', 'naboo'] as const)];
  const { createApiKey } = await connect().request(CreateApiKeyDocument, { organizationId: flags.org, scope, format });
  // Exactly the contract's fields (docs/cli.md: {"id", "key", "scope"}); the key is shown only here.
  return { id: createApiKey.apiKey.id, key: createApiKey.key, scope: createApiKey.apiKey.scope };
}

async function webhookCreate(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { org: { type: 'string' }, url: { type: 'string' }, version: { type: 'string' } } });
  if (!flags.org) throw new UsageError('--org is required');
  if (!flags.url) throw new UsageError('--url is required');
  const version = flags.version === undefined ? undefined : oneOf('--version', flags.version, WEBHOOK_VERSIONS);
  const { createWebhook } = await connect().request(CreateWebhookDocument, { organizationId: flags.org, url: flags.url, version });
  // Exactly the contract's fields (docs/cli.md: {"id", "url", "version", "secret"}); the secret is shown only here.
  return { id: createWebhook.webhook.id, url: createWebhook.webhook.url, version: createWebhook.webhook.version, secret: createWebhook.secret };
}

/** A new delivery of the same event (same body and event id), sent with the webhook's current secret. */
async function webhookRedeliver(argv: string[], connect: Connect) {
  const [deliveryId] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['DELIVERY_ID']);
  const { redeliverWebhook } = await connect().request(RedeliverWebhookDocument, { deliveryId });
  return redeliverWebhook;
}

async function keyList(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { org: { type: 'string' } } });
  if (!flags.org) throw new UsageError('--org is required');
  const { apiKeys } = await connect().request(ApiKeysDocument, { organizationId: flags.org });
  // Metadata only, field by field: nothing the gateway might add to a key reaches the output unseen.
  return { keys: apiKeys.map(({ id, scope, prefix, revoked, revokedAt, createdAt }) => ({ id, scope, prefix, revoked, revokedAt, createdAt })) };
}

async function keyRevoke(argv: string[], connect: Connect) {
  const [id] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['KEY_ID']);
  const { revokeApiKey } = await connect().request(RevokeApiKeyDocument, { id });
  // propagationConfirmed false: revoked, but not every instance could be told in time (see the schema).
  return { id: revokeApiKey.id, revoked: revokeApiKey.revoked, propagationConfirmed: revokeApiKey.propagationConfirmed };
}

async function operatorTokenCreate(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { role: { type: 'string' } } });
  if (flags.role === undefined) throw new UsageError('--role is required');
  const role = oneOf('--role', flags.role, ROLES);
  const { createOperatorToken } = await connect().request(CreateOperatorTokenDocument, { role });
  // Exactly the contract's fields (docs/cli.md: {"id", "token", "role"}); the token is shown only here.
  return { id: createOperatorToken.operatorToken.id, token: createOperatorToken.token, role: createOperatorToken.operatorToken.role };
}

async function operatorTokenList(argv: string[], connect: Connect) {
  parseArgs({ args: argv });
  const { operatorTokens } = await connect().request(OperatorTokensDocument);
  // Metadata only, field by field: nothing the gateway might add to a token reaches the output unseen.
  return { tokens: operatorTokens.map(({ id, role, prefix, revoked, revokedAt, createdAt }) => ({ id, role, prefix, revoked, revokedAt, createdAt })) };
}

async function operatorTokenRevoke(argv: string[], connect: Connect) {
  const [id] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['ID']);
  const { revokeOperatorToken } = await connect().request(RevokeOperatorTokenDocument, { id });
  // propagationConfirmed false: revoked, but not every instance could be told in time (see the schema), as for `key revoke`.
  const { id: tokenId, role, revoked, revokedAt, propagationConfirmed } = revokeOperatorToken;
  return { id: tokenId, role, revoked, revokedAt, propagationConfirmed };
}

/** A dashboard invitation: the one-time link to hand over (the organisation's first user is its owner). */
async function userInvite(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } } });
  if (!flags.org) throw new UsageError('--org is required');
  if (!flags.email) throw new UsageError('--email is required');
  const role = flags.role === undefined ? undefined : oneOf('--role', flags.role, MEMBER_ROLES);
  const { inviteMember } = await connect().request(InviteMemberDocument, { organizationId: flags.org, email: flags.email, role });
  return { email: inviteMember.email, role: inviteMember.role, link: inviteMember.link };
}

async function switchSet(argv: string[], connect: Connect) {
  const [name, state] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['SWITCH', 'on|off']);
  const variables = { name: oneOf('switch', name, SWITCHES), on: oneOf('state', state, ['on', 'off'] as const) === 'on' };
  const { setSwitch } = await connect().request(SetSwitchDocument, variables);
  return { switch: setSwitch.name, on: setSwitch.on };
}

/**
 * Prints the transaction once it is paid. A payment the sandbox wallet declined (phone ending 0000)
 * or left unconfirmed (1111) is a failure of the command: {"error": reason} and exit 1, so a script
 * never mistakes a still-pending transaction for a paid one.
 */
async function sandboxPay(argv: string[], connect: Connect) {
  const { values: flags, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { method: { type: 'string' }, phone: { type: 'string' } } });
  const [orderId] = expectPositionals(positionals, ['ORDER_ID']);
  const method = flags.method === undefined ? undefined : oneOf('--method', flags.method, METHODS);
  const { sandboxPay: payment } = await connect().request(SandboxPayDocument, { orderId, method, phone: flags.phone });
  if (payment.outcome !== 'paid') throw new Error(payment.reason ?? `the payment is ${payment.outcome}`);
  return payment.transaction;
}

async function escrowRelease(argv: string[], connect: Connect) {
  const [orderId] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['ORDER_ID']);
  const { releaseEscrow } = await connect().request(ReleaseEscrowDocument, { orderId });
  return releaseEscrow;
}

async function accountAdjust(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({
    // `--amount -500` reads to parseArgs like a missing value followed by a flag: keep it a value.
    args: withNegativeValue(argv, '--amount'),
    options: { org: { type: 'string' }, amount: { type: 'string' }, reason: { type: 'string' } },
  });
  if (!flags.org) throw new UsageError('--org is required');
  if (flags.amount === undefined) throw new UsageError('--amount is required');
  if (flags.reason === undefined) throw new UsageError('--reason is required');
  const { adjustAccount } = await connect().request(AdjustAccountDocument, { organizationId: flags.org, amount: signedAmount('--amount', flags.amount), reason: flags.reason });
  return adjustAccount;
}

/**
 * Sends a payout awaiting review and prints it once `completed`. Like `sandbox pay`, an approval
 * the provider refused (`failed`, funds returned) or has not answered yet (`pending`: the gateway
 * reconciles it later, never sending it twice) is a failure of the command: {"error"} and exit 1,
 * so a script never takes an unsent payout for a sent one.
 */
async function payoutApprove(argv: string[], connect: Connect) {
  const [orderId] = expectPositionals(parseArgs({ args: argv, allowPositionals: true }).positionals, ['ORDER_ID']);
  const { approvePayout: payout } = await connect().request(ApprovePayoutDocument, { orderId });
  if (payout.status === 'failed') {
    throw new Error(`the provider refused payout ${payout.orderId} (${payout.failureReason ?? 'no reason given'}): it is failed, its amount and fees were returned to main`);
  }
  if (payout.status !== 'completed') {
    throw new Error(`the provider has not answered for payout ${payout.orderId} yet: it stays ${payout.status} until the gateway settles it (it is never sent twice)`);
  }
  return payout;
}

/** Cancels a payout awaiting review (its amount and fees back in main) and prints it. */
async function payoutReject(argv: string[], connect: Connect) {
  const { values: flags, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { reason: { type: 'string' } } });
  const [orderId] = expectPositionals(positionals, ['ORDER_ID']);
  const { rejectPayout } = await connect().request(RejectPayoutDocument, { orderId, reason: flags.reason });
  return rejectPayout;
}

/**
 * The ledger against the provider's own records for a period (default the last 24 hours): every
 * difference. DATE is RFC 3339, or YYYY-MM-DD for that whole UTC day (--to includes its day).
 */
async function reconcile(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { method: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } } });
  if (!flags.method) throw new UsageError('--method is required');
  const method = oneOf('--method', flags.method, METHODS);
  const { reconcileProvider } = await connect().request(ReconcileProviderDocument, { method, from: dateFlag('--from', flags.from, 'start'), to: dateFlag('--to', flags.to, 'end') });
  return { matched: reconcileProvider.matched, discrepancies: reconcileProvider.discrepancies, discrepancyCount: reconcileProvider.discrepancyCount, method: reconcileProvider.method, from: reconcileProvider.from, to: reconcileProvider.to };
}

/** A date flag: RFC 3339 as given, or a bare UTC day (its start, or for `end` the start of the next day). */
function dateFlag(name: string, value: string | undefined, side: 'start' | 'end'): string | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(day.getTime())) throw new UsageError(`${name} must be a date (YYYY-MM-DD or RFC 3339)`);
    return new Date(day.getTime() + (side === 'end' ? 86_400_000 : 0)).toISOString();
  }
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(at.getTime())) throw new UsageError(`${name} must be a date (YYYY-MM-DD or RFC 3339)`);
  return at.toISOString();
}

/** Provider calls whose outcome is not known yet (oldest first), for an operator to check. */
async function providerCallList(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { kind: { type: 'string' }, stuck: { type: 'boolean' } } });
  const kind = flags.kind === undefined ? undefined : oneOf('--kind', flags.kind, CALL_KINDS);
  const { openProviderCalls } = await connect().request(OpenProviderCallsDocument, { kind: kind?.toUpperCase() as ProviderCallKind | undefined, stuckOnly: flags.stuck });
  return { calls: openProviderCalls };
}

/** Records what the provider did with an open call (after checking with it): the money follows. */
async function providerCallSettle(argv: string[], connect: Connect) {
  const { values: flags, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { outcome: { type: 'string' }, reason: { type: 'string' } } });
  const [kind, id] = expectPositionals(positionals, ['KIND', 'ID']);
  if (!flags.outcome) throw new UsageError('--outcome is required');
  if (!flags.reason) throw new UsageError('--reason is required (what the provider said)');
  const { settleProviderCall } = await connect().request(SettleProviderCallDocument, {
    kind: oneOf('KIND', kind, CALL_KINDS).toUpperCase() as ProviderCallKind,
    id,
    outcome: oneOf('--outcome', flags.outcome, CALL_OUTCOMES).toUpperCase() as ProviderCallOutcome,
    reason: flags.reason,
  });
  return settleProviderCall;
}

// --- argument values --------------------------------------------------------------------------

/** Exactly one positional argument per name, typed as a tuple of that length. */
function expectPositionals<const N extends readonly string[]>(positionals: string[], names: N): { [K in keyof N]: string } {
  if (positionals.length < names.length) throw new UsageError(`missing ${names.slice(positionals.length).join(' ')}`);
  if (positionals.length > names.length) throw new UsageError(`unexpected argument '${positionals[names.length]}'`);
  return positionals as { [K in keyof N]: string };
}

function oneOf<T extends string>(what: string, value: string | undefined, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new UsageError(`${what} must be one of ${allowed.join(', ')} (got '${value}')`);
  return value as T;
}

function boolean(flag: string, value: string): boolean {
  return oneOf(flag, value, ['true', 'false'] as const) === 'true';
}

function methods(list: string): PaymentMethod[] {
  return list.split(',').map((method) => oneOf('--methods', method.trim(), METHODS));
}

/** A whole number that fits a GraphQL Int (32 bits); what range is valid is the gateway's to say. */
function integer(flag: string, value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 2 ** 31 - 1) throw new UsageError(`${flag} must be a whole number (got '${value}')`);
  return parsed;
}

/** A whole number of XOF; `none` clears the limit (the API takes null for that). */
function amount(flag: string, value: string): number | null {
  if (value === 'none') return null;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed)) throw new UsageError(`${flag} must be a whole number of XOF or none (got '${value}')`);
  return parsed;
}

/** A signed whole number of XOF; whether it is allowed (non-zero, in range) is the gateway's to say. */
function signedAmount(flag: string, value: string): number {
  const parsed = Number(value);
  if (!/^[-+]?\d+$/.test(value) || !Number.isSafeInteger(parsed)) throw new UsageError(`${flag} must be a whole number of XOF, negative to debit (got '${value}')`);
  return parsed;
}

/** `FLAG -500` -> `FLAG=-500`: a negative number after FLAG is its value, not another flag. */
function withNegativeValue(argv: string[], flag: string): string[] {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const next = argv[index + 1];
    if (argv[index] === flag && next !== undefined && /^-\d/.test(next)) {
      out.push(`${flag}=${next}`);
      index += 1;
    } else out.push(argv[index]!);
  }
  return out;
}

// --- gateway connection -----------------------------------------------------------------------

function connector(env: Env): Connect {
  const base = env.GATEWAY_URL || DEFAULT_URL;
  return () => {
    if (!URL.canParse(base)) throw new Error(`GATEWAY_URL is not a URL: '${base}'`);
    const token = env.GATEWAY_ADMIN_TOKEN;
    if (!token) throw new Error('GATEWAY_ADMIN_TOKEN is not set (an admin or operator token)');
    return new GraphQLClient(`${base.replace(/\/+$/, '')}/graphql`, {
      headers: { authorization: `Bearer ${token}` },
      // Tell "no gateway there" apart from "the gateway said no": only fetch itself throws here.
      fetch: async (input, init) => {
        try {
          return await fetch(input, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
        } catch (error) {
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
          throw new Error(`cannot reach the gateway at ${base}: ${cause instanceof Error ? cause.message : String(cause)}`);
        }
      },
    });
  };
}

function errorMessage(error: unknown, command: CommandName | undefined): string {
  if (error instanceof UsageError) return command ? `${error.message} (usage: gateway ${COMMANDS[command].usage})` : error.message;
  // node:util parseArgs rejects unknown flags and missing values with ERR_PARSE_ARGS_* codes.
  if (error instanceof TypeError && String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) {
    // Their advice on dashes (`--flag=-x`, `-- "--x"`) fits no argument of ours: keep the first part.
    return errorMessage(new UsageError(error.message.replace(/\s*To specify[\s\S]*$/, '').replace(/\s*\n\s*/g, ' ')), command);
  }
  if (error instanceof ClientError) {
    return error.response.errors?.[0]?.message ?? `the gateway answered HTTP ${error.response.status} without a GraphQL result`;
  }
  return error instanceof Error ? error.message : String(error);
}

// --- entry point ------------------------------------------------------------------------------

function help() {
  return {
    usage: Object.values(COMMANDS).map(({ usage }) => `gateway ${usage}`),
    environment: {
      GATEWAY_URL: `the gateway's API address (default ${DEFAULT_URL})`,
      GATEWAY_ADMIN_TOKEN: 'the admin or operator token to act with',
    },
  };
}

/** Runs one command line; prints its single JSON object and returns the exit code. */
export async function main(argv: string[], env: Env = process.env): Promise<number> {
  // Commands are two words, but for `reconcile`.
  const words = Object.hasOwn(COMMANDS, argv[0] ?? '') ? 1 : 2;
  const name = argv.slice(0, words).join(' ');
  const command = Object.hasOwn(COMMANDS, name) ? (name as CommandName) : undefined;
  let output: object;
  let code = 0;
  try {
    if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) output = help();
    else if (!command) {
      const known = Object.keys(COMMANDS).join(', ');
      throw new UsageError(argv.length ? `unknown command '${name}'; commands: ${known}; see gateway help` : `no command given; commands: ${known}; see gateway help`);
    } else output = await COMMANDS[command].run(argv.slice(words), connector(env));
  } catch (error) {
    output = { error: errorMessage(error, command) };
    code = 1;
  }
  // Indented for a person at a terminal, one line for scripts and pipes.
  process.stdout.write(`${JSON.stringify(output, null, process.stdout.isTTY ? 2 : undefined)}\n`);
  return code;
}
