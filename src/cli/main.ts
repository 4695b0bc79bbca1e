/**
 * Operator CLI (`gateway <command>`): a thin client of the GraphQL admin API at GATEWAY_URL, acting
 * with the operator token in GATEWAY_ADMIN_TOKEN. When either is unset, what a gateway started from
 * the same folder left in its data folder (src/infra/localGateway.ts) stands in for it.
 *
 * Output: every command prints ONE JSON object on stdout and exits 0; any failure prints
 * {"error": "..."} and exits 1, so scripts can always parse the output and branch on the exit code.
 * Two exceptions, both for people: `help` and `--help` print text, and `listen` (which runs until
 * stopped) prints one JSON object per line.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ClientError, GraphQLClient } from 'graphql-request';
import { dataDirOf } from '../config.js';
import { adminTokenIn, ADMIN_TOKEN_FILE_NAME, GATEWAY_FILE_NAME, runningGatewayIn } from '../infra/localGateway.js';
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
  ProviderStatusDocument,
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
  TriggerTransactionDocument,
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
  type WebhookEvent,
  type WebhookVersion,
} from './generated/graphql.js';

const DEFAULT_URL = 'http://127.0.0.1:3000';
/** A gateway that accepts the connection but never answers must not hang a script forever. */
const TIMEOUT_MS = 30_000;

type Env = Record<string, string | undefined>;
/** Commands build their client only after their arguments are valid (bad flags beat a missing token). */
type Connect = () => GraphQLClient;

/** Where the output goes and what stops a long-running command: the process's unless a caller (a test) says. */
export interface Io {
  /** Receives the output, one piece ending in a newline at a time (default: stdout). */
  write?: (text: string) => void;
  /** Ends `listen` (default: this process's SIGINT or SIGTERM). */
  signal?: AbortSignal;
}

/** What a command may use beside its arguments and its client (only `listen` needs more). */
interface CommandContext {
  /** The gateway's address and token, resolved as `connect` resolves them. */
  target: () => Target;
  /** Prints one JSON object on a line of its own. */
  writeLine: (value: object) => void;
  signal: AbortSignal | undefined;
}

/** A mistake on the command line: reported with the command's usage. */
export class UsageError extends Error {}

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
const WEBHOOK_EVENTS = values<WebhookEvent>({ payment_status: true, payout_status: true, refund_status: true, payout_batch_status: true });
const CALL_KINDS = values<ProviderCallKind>({ PAYMENT: true, REFUND: true, PAYOUT: true, LATE_PAYMENT_RETURN: true }).map((kind) => kind.toLowerCase());
const CALL_OUTCOMES = values<ProviderCallOutcome>({ SUCCEEDED: true, FAILED: true }).map((outcome) => outcome.toLowerCase());
/**
 * The webhook events `trigger` makes and `listen` forwards: the gateway's events but `test`, which
 * only an endpoint check sends (sendTestWebhook), never a change of state.
 */
export const EVENTS = ['payment_status'] as const;
/** What `listen` forwards: every event a webhook endpoint can subscribe to (listen.ts holds a live update for each). */
const LISTEN_EVENTS = WEBHOOK_EVENTS;

/** A command: its usage line, what it does in a sentence or two, and each argument and option (for `--help`). */
interface Command {
  usage: string;
  summary: string;
  /** [name, what it is]: positional arguments (upper case) and options (`--...`). */
  options?: readonly (readonly [string, string])[];
  run: (argv: string[], connect: Connect, context: CommandContext) => Promise<object | null>;
}

export const COMMANDS = {
  'org create': {
    usage: 'org create --name NAME [--verified] [--escrow] [--payouts] [--methods wave,orange_money] [--sector SECTOR]',
    summary: 'Registers an organisation (a merchant) with its main and escrow accounts, and prints it.',
    options: [
      ['--name NAME', 'its name (required)'],
      ['--verified', 'verified from the start (an unverified organisation has a monthly limit)'],
      ['--escrow', 'it may hold payments in escrow'],
      ['--payouts', 'it may send payouts'],
      ['--methods LIST', `the payment methods it may offer, comma-separated: ${METHODS.join(',')} (default: all)`],
      ['--sector SECTOR', 'its business sector (default general; an empty one refuses transactions until it is set)'],
    ],
    run: orgCreate,
  },
  'org list': {
    usage: `org list [--page N] [--limit N] [--status ${STATUSES.join('|')}] [--search TEXT]`,
    summary: 'Lists the organisations, newest first.',
    options: [
      ['--page N', 'the page, from 1'],
      ['--limit N', 'organisations per page (default 20, at most 100)'],
      ['--status S', `only those ${STATUSES.join(', ')}`],
      ['--search TEXT', 'only those whose name contains TEXT (any case)'],
    ],
    run: orgList,
  },
  'org get': { usage: 'org get ID', summary: 'Prints one organisation.', options: [['ID', 'the organisation’s id']], run: orgGet },
  'org update': {
    usage:
      'org update ID [--status active|inactive|blocked] [--verified true|false] [--escrow true|false] [--payouts true|false] ' +
      '[--methods LIST] [--sector S] [--min-amount N|none] [--max-amount N|none] [--max-payout N|none]',
    summary: 'Changes an organisation: only what a flag names changes. Prints the organisation.',
    options: [
      ['ID', 'the organisation’s id'],
      ['--status S', `${STATUSES.join(', ')} (blocked refuses everything its keys ask; inactive every write)`],
      ['--verified true|false', 'lifts (or sets) the monthly limit of unverified organisations'],
      ['--escrow true|false', 'whether it may hold payments in escrow'],
      ['--payouts true|false', 'whether it may send payouts'],
      ['--methods LIST', `the payment methods it may offer, comma-separated: ${METHODS.join(',')}`],
      ['--sector S', 'its business sector'],
      ['--min-amount N|none', 'the smallest transaction it may create, XOF (none removes the limit)'],
      ['--max-amount N|none', 'the largest transaction, XOF'],
      ['--max-payout N|none', 'the largest payout, XOF'],
    ],
    run: orgUpdate,
  },
  'key create': {
    usage: `key create --org ID --scope ${SCOPES.join('|')} [--format gateway|naboo]`,
    summary: 'Issues an API key for an organisation, and prints it: the key is shown only this once.',
    options: [
      ['--org ID', 'the organisation (required)'],
      ['--scope SCOPE', `what the key may do (required): ${SCOPES.join(', ')}`],
      ['--format F', 'gateway (default), or naboo: the form the NabooPay Python SDK accepts'],
    ],
    run: keyCreate,
  },
  'key list': {
    usage: 'key list --org ID',
    summary: 'Lists an organisation’s API keys, newest first: metadata only, never a key.',
    options: [['--org ID', 'the organisation (required)']],
    run: keyList,
  },
  'key revoke': {
    usage: 'key revoke KEY_ID',
    summary: 'Revokes an API key, at once on every instance.',
    options: [['KEY_ID', 'the key’s id (key list shows them)']],
    run: keyRevoke,
  },
  'operator-token create': {
    usage: `operator-token create --role ${ROLES.join('|')}`,
    summary: 'Issues an operator token, and prints it: the token is shown only this once.',
    options: [['--role R', 'admin (everything), analyst (reads only) or support (reads, payout review, escrow release, webhook redelivery)']],
    run: operatorTokenCreate,
  },
  'operator-token list': { usage: 'operator-token list', summary: 'Lists the operator tokens: metadata only, never a token.', run: operatorTokenList },
  'operator-token revoke': {
    usage: 'operator-token revoke ID',
    summary: 'Revokes an operator token, from its next request on every instance.',
    options: [['ID', 'the token’s id (operator-token list shows them)']],
    run: operatorTokenRevoke,
  },
  'user invite': {
    usage: `user invite --org ID --email E [--role ${MEMBER_ROLES.join('|')}]`,
    summary: 'Invites a person to an organisation’s dashboard, and prints the one-time link to hand over.',
    options: [
      ['--org ID', 'the organisation (required)'],
      ['--email E', 'the person’s email (required)'],
      ['--role R', `${MEMBER_ROLES.join(', ')} (default viewer; an organisation’s first user is its owner)`],
    ],
    run: userInvite,
  },
  'switch set': {
    usage: `switch set ${SWITCHES.join('|')} on|off`,
    summary: 'Turns new transactions, payouts or a payment method off (or on again) for the whole gateway.',
    options: [
      ['SWITCH', SWITCHES.join(', ')],
      ['on|off', 'its new state'],
    ],
    run: switchSet,
  },
  'sandbox pay': {
    usage: `sandbox pay ORDER_ID [--method ${METHODS.join('|')}] [--phone P]`,
    summary: 'Pays a pending transaction with the sandbox wallet, as its checkout page would, and prints it once paid.',
    options: [
      ['ORDER_ID', 'the transaction'],
      ['--method M', 'one the transaction offers (default the first)'],
      ['--phone P', 'the paying wallet (default the customer’s): ending 0000 declines, 1111 never confirms'],
    ],
    run: sandboxPay,
  },
  'escrow release': {
    usage: 'escrow release ORDER_ID',
    summary: 'Moves a paid_and_blocked transaction’s proceeds from escrow to main; prints it, now paid.',
    options: [['ORDER_ID', 'the transaction']],
    run: escrowRelease,
  },
  'account adjust': {
    usage: 'account adjust --org ID --amount N --reason R',
    summary: 'Posts a signed correction of an organisation’s main account (never below zero), and prints the account.',
    options: [
      ['--org ID', 'the organisation (required)'],
      ['--amount N', 'XOF: positive credits, negative debits (required)'],
      ['--reason R', 'why, kept on the ledger entry (required)'],
    ],
    run: accountAdjust,
  },
  'payout approve': {
    usage: 'payout approve ORDER_ID',
    summary: 'Sends a payout awaiting review, and prints it once the provider completed it.',
    options: [['ORDER_ID', 'the payout']],
    run: payoutApprove,
  },
  'payout reject': {
    usage: 'payout reject ORDER_ID [--reason R]',
    summary: 'Cancels a payout awaiting review (its amount and fees go back to main), and prints it.',
    options: [
      ['ORDER_ID', 'the payout'],
      ['--reason R', 'why'],
    ],
    run: payoutReject,
  },
  'webhook create': {
    usage: `webhook create --org ID --url URL [--version ${WEBHOOK_VERSIONS.join('|')}] [--events ${WEBHOOK_EVENTS.join(',')}]`,
    summary: 'Registers a webhook endpoint of an organisation, and prints it with its signing secret, shown only this once.',
    options: [
      ['--org ID', 'the organisation (required)'],
      [
        '--url URL',
        'where deliveries go (required): private and loopback addresses are refused unless the gateway runs with WEBHOOK_ALLOW_PRIVATE_URLS=true; to receive events on this machine, see gateway listen',
      ],
      ['--version V', `the body's shape: ${WEBHOOK_VERSIONS.join(' or ')} (default v2)`],
      ['--events LIST', `the events to send it, comma-separated: ${WEBHOOK_EVENTS.join(', ')} (default payment_status)`],
    ],
    run: webhookCreate,
  },
  'webhook redeliver': {
    usage: 'webhook redeliver DELIVERY_ID',
    summary: 'Sends a delivery again (same body and event id), signed with the webhook’s current secret.',
    options: [['DELIVERY_ID', 'the delivery']],
    run: webhookRedeliver,
  },
  reconcile: {
    usage: `reconcile --method ${METHODS.join('|')} [--from DATE --to DATE]`,
    summary: 'Compares the ledger with a provider’s own records over a period and prints every difference; changes nothing.',
    options: [
      ['--method M', 'the provider (required)'],
      ['--from DATE', 'RFC 3339, or YYYY-MM-DD for that whole UTC day (default 24 hours ago)'],
      ['--to DATE', 'likewise; a day includes itself (default now)'],
    ],
    run: reconcile,
  },
  'provider status': {
    usage: 'provider status',
    summary: "Says whether each method's wallet provider is healthy, and why not (a revoked key, an outage).",
    options: [],
    run: providerStatus,
  },
  'provider-call list': {
    usage: `provider-call list [--kind ${CALL_KINDS.join('|')}] [--stuck]`,
    summary: 'Lists the calls to a wallet provider whose outcome is not known yet, oldest first.',
    options: [
      ['--kind K', `only ${CALL_KINDS.join(', ')}`],
      ['--stuck', 'only those the provider was asked about 5 times without a final answer'],
    ],
    run: providerCallList,
  },
  'provider-call settle': {
    usage: `provider-call settle ${CALL_KINDS.join('|')} ID --outcome ${CALL_OUTCOMES.join('|')} --reason R`,
    summary: 'Records what the provider did with an open call, after checking with it: the money follows.',
    options: [
      ['KIND', CALL_KINDS.join(', ')],
      ['ID', 'the call (provider-call list shows them)'],
      ['--outcome O', 'succeeded (the money moved) or failed (it did not) (required)'],
      ['--reason R', 'what the provider said (required)'],
    ],
    run: providerCallSettle,
  },
  trigger: {
    usage: `trigger ${EVENTS.join('|')} --org ID`,
    summary:
      'Makes the event happen in an organisation, to try an integration end to end: for payment_status, a transaction paid through the sandbox ' +
      '(a real one, in its books: its webhooks and gateway listen receive the event). Prints the transaction. Needs an admin token, no API key.',
    options: [
      ['EVENT', EVENTS.join(', ')],
      ['--org ID', 'the organisation (required)'],
    ],
    run: trigger,
  },
  listen: {
    usage: `listen --org ID [--forward-to URL] [--events ${LISTEN_EVENTS.join(',')}]`,
    summary:
      'Receives an organisation’s webhook events on this machine until Ctrl-C: each is built, signed and sent as a real delivery, ' +
      'with a secret made for this session (printed first, to check X-Signature with). Prints one JSON line per event.',
    options: [
      ['--org ID', 'the organisation whose events to receive (required)'],
      ['--forward-to URL', 'where to POST each event: any http(s) address, this machine’s included (without it, events are only printed)'],
      ['--events LIST', `which events, comma-separated: ${LISTEN_EVENTS.join(', ')} (default all)`],
    ],
    run: listenCommand,
  },
} satisfies Record<string, Command>;
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
  const format =
    flags.format === undefined ? undefined : ({ gateway: 'GATEWAY', naboo: 'NABOO' } as const)[oneOf('--format', flags.format, ['gateway', 'naboo'] as const)];
  const { createApiKey } = await connect().request(CreateApiKeyDocument, { organizationId: flags.org, scope, format });
  // Exactly the contract's fields (docs/cli.md: {"id", "key", "scope"}); the key is shown only here.
  return { id: createApiKey.apiKey.id, key: createApiKey.key, scope: createApiKey.apiKey.scope };
}

async function webhookCreate(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({
    args: argv,
    options: { org: { type: 'string' }, url: { type: 'string' }, version: { type: 'string' }, events: { type: 'string' } },
  });
  if (!flags.org) throw new UsageError('--org is required');
  if (!flags.url) throw new UsageError('--url is required');
  const version = flags.version === undefined ? undefined : oneOf('--version', flags.version, WEBHOOK_VERSIONS);
  const events = flags.events === undefined ? undefined : flags.events.split(',').map((event) => oneOf('--events', event.trim(), WEBHOOK_EVENTS));
  const { createWebhook } = await connect()
    .request(CreateWebhookDocument, { organizationId: flags.org, url: flags.url, version, events })
    .catch((error: unknown) => {
      // The gateway never sends to such an address: say what works instead.
      if (!(error instanceof ClientError) || error.response.errors?.[0]?.extensions?.code !== 'PRIVATE_WEBHOOK_URL') throw error;
      throw new Error(
        `${error.response.errors[0]!.message}: to receive events on this machine, run gateway listen --org ${flags.org} --forward-to ${flags.url} ` +
          '(or start a development gateway with WEBHOOK_ALLOW_PRIVATE_URLS=true)',
      );
    });
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
  const { adjustAccount } = await connect().request(AdjustAccountDocument, {
    organizationId: flags.org,
    amount: signedAmount('--amount', flags.amount),
    reason: flags.reason,
  });
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
    throw new Error(
      `the provider refused payout ${payout.orderId} (${payout.failureReason ?? 'no reason given'}): it is failed, its amount and fees were returned to main`,
    );
  }
  if (payout.status !== 'completed') {
    throw new Error(
      `the provider has not answered for payout ${payout.orderId} yet: it stays ${payout.status} until the gateway settles it (it is never sent twice)`,
    );
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
  const { reconcileProvider } = await connect().request(ReconcileProviderDocument, {
    method,
    from: dateFlag('--from', flags.from, 'start'),
    to: dateFlag('--to', flags.to, 'end'),
  });
  return {
    matched: reconcileProvider.matched,
    discrepancies: reconcileProvider.discrepancies,
    discrepancyCount: reconcileProvider.discrepancyCount,
    providerFees: reconcileProvider.providerFees,
    outsideGateway: { count: reconcileProvider.outsideGatewayCount, amount: reconcileProvider.outsideGatewayAmount },
    method: reconcileProvider.method,
    from: reconcileProvider.from,
    to: reconcileProvider.to,
  };
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

/** Each method's wallet provider: healthy, or down and why (DESIGN.md's contract: {"providers": [{method, provider, healthy, reason}]}). */
async function providerStatus(argv: string[], connect: Connect) {
  parseArgs({ args: argv, options: {} });
  const { providerStatus: providers } = await connect().request(ProviderStatusDocument, {});
  return { providers };
}

/** Provider calls whose outcome is not known yet (oldest first), for an operator to check. */
async function providerCallList(argv: string[], connect: Connect) {
  const { values: flags } = parseArgs({ args: argv, options: { kind: { type: 'string' }, stuck: { type: 'boolean' } } });
  const kind = flags.kind === undefined ? undefined : oneOf('--kind', flags.kind, CALL_KINDS);
  const { openProviderCalls } = await connect().request(OpenProviderCallsDocument, {
    kind: kind?.toUpperCase() as ProviderCallKind | undefined,
    stuckOnly: flags.stuck,
  });
  return { calls: openProviderCalls };
}

/** Records what the provider did with an open call (after checking with it): the money follows. */
async function providerCallSettle(argv: string[], connect: Connect) {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { outcome: { type: 'string' }, reason: { type: 'string' } },
  });
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

// --- trying an integration: trigger and listen ------------------------------------------------

/** What `trigger payment_status` pays, within the organisation's limits. */
const TRIGGER_AMOUNT = 1_000;

/**
 * A transaction in the organisation's place (an admin may: the access policy) paid through the
 * sandbox, the `sandbox pay` path: its payment_status event goes to the organisation's webhooks and
 * to `gateway listen`. A real provider configured for the method is asked like any sandbox payment
 * (docs/cli.md says so).
 */
async function trigger(argv: string[], connect: Connect) {
  const { values: flags, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { org: { type: 'string' } } });
  const [event] = expectPositionals(positionals, ['EVENT']);
  oneOf('EVENT', event, EVENTS);
  if (!flags.org) throw new UsageError('--org is required');
  const client = connect();
  const { organization } = await client.request(OrganizationDocument, { id: flags.org });
  const price = Math.min(Math.max(TRIGGER_AMOUNT, organization.minTransactionAmount ?? 0), organization.maxTransactionAmount ?? Number.MAX_SAFE_INTEGER);
  const { createTransaction } = await client.request(TriggerTransactionDocument, {
    organizationId: organization.id,
    input: {
      methodOfPayment: organization.allowedMethods,
      products: [{ name: 'Test payment', price, quantity: 1, description: `Made by gateway trigger ${event}` }],
    },
  });
  return sandboxPay([createTransaction.transaction.orderId], connect);
}

/** `listen`: its flags checked here (a usage error before anything is sent); the loop in listen.ts. */
async function listenCommand(argv: string[], connect: Connect, context: CommandContext): Promise<null> {
  const { values: flags } = parseArgs({ args: argv, options: { org: { type: 'string' }, 'forward-to': { type: 'string' }, events: { type: 'string' } } });
  if (!flags.org) throw new UsageError('--org is required');
  const events = flags.events === undefined ? [...LISTEN_EVENTS] : flags.events.split(',').map((event) => oneOf('--events', event.trim(), LISTEN_EVENTS));
  const forwardTo = flags['forward-to'];
  if (forwardTo !== undefined && !/^https?:$/.test(URL.canParse(forwardTo) ? new URL(forwardTo).protocol : '')) {
    throw new UsageError(`--forward-to must be an http(s) URL (got '${forwardTo}')`);
  }
  const client = connect();
  // Loaded only here: the other commands start without the webhook sender.
  const { listen } = await import('./listen.js');
  await listen({
    organizationId: flags.org,
    forwardTo,
    events: [...new Set(events)],
    client,
    target: context.target(),
    write: context.writeLine,
    signal: context.signal ?? stopSignalOfProcess(),
  });
  return null;
}

/** SIGINT (Ctrl-C) or SIGTERM ends `listen` cleanly; a second one is the default again: it kills. */
function stopSignalOfProcess(): AbortSignal {
  const controller = new AbortController();
  const stop = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    controller.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return controller.signal;
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
  if (!/^[-+]?\d+$/.test(value) || !Number.isSafeInteger(parsed))
    throw new UsageError(`${flag} must be a whole number of XOF, negative to debit (got '${value}')`);
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

/** The gateway to talk to and the token to act with; `fetch` says what to change when it is not there. */
export interface Target {
  url: string;
  token: string;
  fetch: typeof fetch;
}

/**
 * GATEWAY_URL, else the address a running gateway left in the data folder, else the default;
 * GATEWAY_ADMIN_TOKEN, else the token a gateway generated in the data folder. Every error names the
 * variable to set.
 */
function targetOf(env: Env): Target {
  const dataDir = dataDirOf(env);
  const found = env.GATEWAY_URL ? null : runningGatewayIn(dataDir);
  const base = env.GATEWAY_URL || found?.url || DEFAULT_URL;
  if (!URL.canParse(base)) throw new Error(`GATEWAY_URL is not a URL: '${base}'`);
  const token = env.GATEWAY_ADMIN_TOKEN || adminTokenIn(dataDir)?.token;
  if (!token) {
    throw new Error(
      `GATEWAY_ADMIN_TOKEN is not set: set it to an operator token (a gateway started without one generated it, printed it at its first start ` +
        `and keeps it in its data folder's ${ADMIN_TOKEN_FILE_NAME} file; there is none at ${path.resolve(dataDir, ADMIN_TOKEN_FILE_NAME)})`,
    );
  }
  const url = base.replace(/\/+$/, '');
  const from = found ? ` (the address in ${found.file})` : '';
  return {
    url,
    token,
    // Tell "no gateway there" apart from "the gateway said no": only fetch itself throws here.
    fetch: async (input, init) => {
      try {
        return await fetch(input, init);
      } catch (error) {
        if (init?.signal?.aborted && !(init.signal.reason instanceof DOMException && init.signal.reason.name === 'TimeoutError')) throw error;
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
        throw new Error(
          `cannot reach the gateway at ${url}${from}: is it running? Set GATEWAY_URL to its address (${cause instanceof Error ? cause.message : String(cause)})`,
        );
      }
    },
  };
}

function connector(env: Env): Connect {
  return () => {
    const { url, token, fetch: reach } = targetOf(env);
    return new GraphQLClient(`${url}/graphql`, {
      headers: { authorization: `Bearer ${token}` },
      fetch: (input, init) => reach(input, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) }),
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

// --- help (text, for people) ------------------------------------------------------------------

const WIDTH = 100;

/**
 * `text` in lines of at most WIDTH characters, every line but the first indented by `indent`. An
 * optional part of a usage line (`[--flag VALUE]`) is one word: it never breaks in two.
 */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.match(/\[[^\]]*\]|\S+/g) ?? []) {
    if (line && line.length + 1 + word.length > WIDTH - indent) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** Two columns: names padded to one width, texts wrapped beside them. */
function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.map(([name, text]) => `  ${name.padEnd(width)}${wrap(text, width + 2)}`).join('\n');
}

const ENVIRONMENT: readonly (readonly [string, string])[] = [
  [
    'GATEWAY_URL',
    `the gateway's API address (default: the one in the data folder's ${GATEWAY_FILE_NAME}, which a gateway started from this folder on its ` +
      `embedded database writes while it runs; else ${DEFAULT_URL})`,
  ],
  [
    'GATEWAY_ADMIN_TOKEN',
    `the operator token to act with (default: the data folder's ${ADMIN_TOKEN_FILE_NAME} file, where a gateway started without this variable ` +
      'keeps the token it generated)',
  ],
  ['GATEWAY_DATA_DIR', 'the data folder looked in (default ./.gateway-data, as for the gateway)'],
];

function generalHelp(): string {
  return [
    'Usage: gateway <command> [arguments] [options]',
    '',
    wrap(
      'The gateway’s operator CLI: runs one command against the gateway’s admin API and prints its result as one JSON object; a failure prints ' +
        '{"error": "..."} and exits 1. listen prints one JSON object per line until stopped.',
      0,
    ),
    '',
    'Commands:',
    table(Object.entries(COMMANDS).map(([name, command]) => [name, command.summary])),
    '',
    'Run `gateway <command> --help` (or `gateway help <command>`) for its arguments and options.',
    '',
    'Environment:',
    table(ENVIRONMENT),
    '',
  ].join('\n');
}

function commandHelp(name: CommandName): string {
  const command: Command = COMMANDS[name];
  const options = command.options ?? [];
  const positional = options.filter(([option]) => !option.startsWith('-'));
  const flags = [...options.filter(([option]) => option.startsWith('-')), ['-h, --help', 'show this help'] as const];
  return [
    wrap(`Usage: gateway ${command.usage}`, 'Usage: gateway '.length),
    '',
    wrap(command.summary, 0),
    '',
    ...(positional.length ? ['Arguments:', table(positional), ''] : []),
    'Options:',
    table(flags),
    '',
    'Environment:',
    table(ENVIRONMENT),
    '',
  ].join('\n');
}

// --- entry point ------------------------------------------------------------------------------

/** The command `argv` names (commands are two words, but for `reconcile`, `trigger` and `listen`). */
function commandOf(argv: string[]): { name: string; command: CommandName | undefined; words: number } {
  const words = Object.hasOwn(COMMANDS, argv[0] ?? '') ? 1 : 2;
  const name = argv.slice(0, words).join(' ');
  return { name, command: Object.hasOwn(COMMANDS, name) ? (name as CommandName) : undefined, words };
}

function unknownCommand(name: string, given: boolean): UsageError {
  const known = Object.keys(COMMANDS).join(', ');
  return new UsageError(given ? `unknown command '${name}'; commands: ${known}; see gateway help` : `no command given; commands: ${known}; see gateway help`);
}

/**
 * Runs one command line; prints its output and returns the exit code. `io` lets a caller (a test)
 * take the output and stop `listen` without a process of its own.
 */
export async function main(argv: string[], env: Env = process.env, io: Io = {}): Promise<number> {
  const write = io.write ?? ((text: string) => void process.stdout.write(text));
  // Indented for a person at a terminal, one line for scripts and pipes (and always one line per event for listen).
  const indent = !io.write && process.stdout.isTTY ? 2 : undefined;
  const asking = argv[0] === 'help' ? argv.slice(1) : argv;
  const { name, command, words } = commandOf(asking);
  try {
    if (argv[0] === 'help' && asking.length > 0 && !command) throw unknownCommand(name, true);
    if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
      write(command ? commandHelp(command) : generalHelp());
      return 0;
    }
    if (!command) throw unknownCommand(name, argv.length > 0);
    const context: CommandContext = { target: () => targetOf(env), writeLine: (value) => write(`${JSON.stringify(value)}\n`), signal: io.signal };
    const output = await COMMANDS[command].run(argv.slice(words), connector(env), context);
    if (output !== null) write(`${JSON.stringify(output, null, indent)}\n`);
    return 0;
  } catch (error) {
    write(`${JSON.stringify({ error: errorMessage(error, command) }, null, indent)}\n`);
    return 1;
  }
}
