/** Runtime configuration from the environment (docs/configuration.md), validated once at start. */
import { isIP } from 'node:net';
import { senegalMsisdn } from './infra/providers/orangeMoney/msisdn.js';
import { StartupError } from './infra/startupErrors.js';
import { DEFAULT_WEBHOOK_SWEEP_MS } from './domain/webhooks/settings.js';

export interface Config {
  host: string;
  port: number;
  checkoutPort: number;
  publicUrl: string;
  checkoutPublicUrl: string;
  databaseUrl: string | undefined;
  /**
   * DATABASE_REPLICA_URL: a streaming standby of DATABASE_URL that serves the reads that may lag
   * (lists, analytics, exports: docs/read-replica.md); unset = everything reads the primary.
   * maxLagMs / checkIntervalMs: REPLICA_MAX_LAG_MS and REPLICA_CHECK_INTERVAL_MS.
   */
  replica: { url: string; maxLagMs: number; checkIntervalMs: number } | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /**
   * REDIS_KEY_PREFIX (default `gw:`): the start of every key and pub/sub channel this deployment
   * uses, so deployments sharing one Redis (staging beside production) keep apart. Every instance
   * of one deployment must use the same.
   */
  redisKeyPrefix: string;
  /** REDIS_CALL_TIMEOUT_MS: the deadline of every coordination call (DEFAULT_REDIS_CALL_TIMEOUT_MS). */
  redisCallTimeoutMs: number;
  adminToken: string | undefined;
  /** enabled: false only when RATE_LIMIT_ENABLED says so (a proxy in front enforces the limit). */
  rateLimit: { max: number; windowMs: number; enabled: boolean };
  webhook: { timeoutMs: number; retryDelayMs: number; maxRetries: number; claimMarginMs: number; sweepEveryMs: number };
  sandboxLatencyMs: number;
  /** The provider flow's bounds (providerFlow.ts): a request's wait, and the reconcilers' pace. */
  providerFlow: { timeoutMs: number; reconcileAfterMs: number; reconcileIntervalMs: number };
  /**
   * Orange Money through Sonatel's Orange Money API (docs/providers.md "Orange Money"): set when
   * ORANGE_MONEY_CLIENT_ID and ORANGE_MONEY_CLIENT_SECRET are; unset = the method uses the sandbox.
   */
  orangeMoney: OrangeMoneyConfig | undefined;
  webhookAllowPrivateUrls: boolean;
  /** WEBHOOK_SECRET_KEY: encrypts stored webhook secrets; unset = generated into the data folder. */
  webhookSecretKey: string | undefined;
  /**
   * TRUSTED_PROXIES: addresses / CIDRs (or `loopback`, `linklocal`, `uniquelocal`) of the reverse
   * proxies whose X-Forwarded-For is believed. The client is the right-most address of that header
   * that is not a trusted proxy (fastify's trustProxy walks it from the right). Empty: none, the
   * socket's address is the client's.
   */
  trustedProxies: string[];
  /**
   * GRAPHQL_PRELOAD (default true): load the GraphQL API before listening. false: load it on the
   * first /graphql request, about a third less CPU to start (docs/operations.md, "Start-up time").
   */
  graphqlPreload: boolean;
  logLevel: string;
}

interface OrangeMoneyConfig {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  merchantCode: string;
  merchantName: string;
  /** The distributor wallet that funds cash ins (payouts, refunds); unset = those fail, nothing sent. */
  partner: { msisdn: string; pin: string } | undefined;
  webhookSecret: string | undefined;
  callbackApiKey: string | undefined;
  /** {PUBLIC_URL}/providers/orange_money/callback, sent with each QR code (X-Callback-Url). */
  callbackUrl: string;
  qrValiditySeconds: number;
  timeoutMs: number;
}

type Env = Record<string, string | undefined>;

// Configuration mistakes are StartupErrors: the operator sees one line naming the variable.
function integer(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new StartupError(`${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`} (got "${raw}")`);
  }
  return value;
}

const MAX_PORT = 65_535;

function ports(env: Env): { port: number; checkoutPort: number } {
  const port = integer(env, 'PORT', 3000, 0, MAX_PORT);
  const checkoutPort = integer(env, 'CHECKOUT_PORT', 3001, 0, MAX_PORT);
  // 0 asks the system for any free port, so two zeros do not collide.
  if (port === checkoutPort && port !== 0) throw new StartupError(`PORT and CHECKOUT_PORT must differ (both are ${port})`);
  return { port, checkoutPort };
}

/** pg would read anything else as a host name and fail later with a puzzling DNS error. */
function databaseUrl(env: Env): string | undefined {
  const url = env.DATABASE_URL || undefined;
  if (url && !/^postgres(ql)?:\/\//i.test(url)) throw new StartupError('DATABASE_URL must be a postgresql:// URL (or unset, for the embedded database)');
  return url;
}

/**
 * A replica only makes sense next to a PostgreSQL primary: embedded PGlite has no standby, so the
 * combination is a configuration mistake, refused at start rather than silently ignored.
 * The check interval must be shorter than the lag bound: a check's answer ages between checks,
 * and the rule counts that age as lag (infra/prisma/replica.ts).
 */
function replica(env: Env, primaryUrl: string | undefined): Config['replica'] {
  const url = env.DATABASE_REPLICA_URL || undefined;
  if (url === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new StartupError('DATABASE_REPLICA_URL must be a postgresql:// URL (or unset: every read goes to the primary)');
  if (primaryUrl === undefined)
    throw new StartupError(
      "DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no replica (unset DATABASE_REPLICA_URL, or set DATABASE_URL to the replica's primary)",
    );
  // Bounds: a lag bound past a minute would serve lists older than any page a person re-reads; a
  // check more often than every 10 ms would be a load of its own on both servers.
  const maxLagMs = integer(env, 'REPLICA_MAX_LAG_MS', 1_000, 1, 60_000);
  const checkIntervalMs = integer(env, 'REPLICA_CHECK_INTERVAL_MS', 250, 10, 60_000);
  if (checkIntervalMs >= maxLagMs)
    throw new StartupError(
      `REPLICA_CHECK_INTERVAL_MS (${checkIntervalMs}) must be less than REPLICA_MAX_LAG_MS (${maxLagMs}): the lag is only known as often as it is checked`,
    );
  return { url, maxLagMs, checkIntervalMs };
}

/** A short key would be guessable: at least 32 characters (e.g. `openssl rand -base64 32`). */
function webhookSecretKey(env: Env): string | undefined {
  const value = env.WEBHOOK_SECRET_KEY || undefined;
  if (value !== undefined && value.length < 32)
    throw new StartupError('WEBHOOK_SECRET_KEY must be at least 32 characters (e.g. the output of `openssl rand -base64 32`)');
  return value;
}

/** Names proxy-addr (fastify's trustProxy) understands besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** One TRUSTED_PROXIES entry: an IPv4/IPv6 address, an address/prefix-length, or a range name. */
function validProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length || address.includes('%')) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function trustedProxies(env: Env): string[] {
  const entries = (env.TRUSTED_PROXIES ?? '').split(/[\s,]+/).filter(Boolean);
  const bad = entries.filter((entry) => !validProxyEntry(entry));
  if (bad.length) {
    throw new StartupError(
      `TRUSTED_PROXIES must list addresses or CIDRs of your reverse proxies, separated by commas (e.g. "10.0.0.5, 10.1.0.0/16", or "loopback"); not understood: ${bad.map((entry) => `"${entry}"`).join(', ')}`,
    );
  }
  return entries;
}

function flag(env: Env, name: string): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env[name] ?? '').toLowerCase());
}

/** A setting on by default: only an explicit false/0/no/off turns it off; anything else unknown is refused. */
function onUnlessSwitchedOff(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || ['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new StartupError(`${name} must be true or false (got "${env[name]}")`);
}

const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');

/** Two settings that only make sense together: both or neither. */
function pair(env: Env, first: string, second: string): [string, string] | undefined {
  const [a, b] = [env[first] || undefined, env[second] || undefined];
  if ((a === undefined) !== (b === undefined)) throw new StartupError(`${first} and ${second} go together: set both, or neither`);
  return a === undefined || b === undefined ? undefined : [a, b];
}

/**
 * Orange Money's settings (docs/providers.md). Callbacks are only believed when signed
 * (ORANGE_MONEY_WEBHOOK_SECRET) or carrying the registered apiKey (ORANGE_MONEY_CALLBACK_API_KEY):
 * one of them is required, so a deployment cannot run accepting anyone's "payment succeeded".
 */
function orangeMoney(env: Env, publicUrl: string): OrangeMoneyConfig | undefined {
  const credentials = pair(env, 'ORANGE_MONEY_CLIENT_ID', 'ORANGE_MONEY_CLIENT_SECRET');
  if (!credentials) return undefined;
  const apiUrl = withoutTrailingSlash(env.ORANGE_MONEY_API_URL || 'https://api.orange-sonatel.com');
  if (!/^https?:\/\/[^\s/]+/i.test(apiUrl)) throw new StartupError('ORANGE_MONEY_API_URL must be an http(s) URL (e.g. https://api.orange-sonatel.com)');
  const merchantCode = env.ORANGE_MONEY_MERCHANT_CODE ?? '';
  if (!/^\d{6}$/.test(merchantCode)) throw new StartupError('ORANGE_MONEY_MERCHANT_CODE must be your 6-digit Orange Money merchant code');
  const partner = pair(env, 'ORANGE_MONEY_PARTNER_MSISDN', 'ORANGE_MONEY_PARTNER_PIN');
  const msisdn = partner && senegalMsisdn(partner[0]);
  if (partner && (!msisdn || !/^\d{4,8}$/.test(partner[1]))) {
    throw new StartupError(
      'ORANGE_MONEY_PARTNER_MSISDN must be a Senegal mobile wallet number (7X XXX XX XX, +221 optional) and ORANGE_MONEY_PARTNER_PIN its PIN (digits)',
    );
  }
  const webhookSecret = env.ORANGE_MONEY_WEBHOOK_SECRET || undefined;
  const callbackApiKey = env.ORANGE_MONEY_CALLBACK_API_KEY || undefined;
  if (!webhookSecret && !callbackApiKey)
    throw new StartupError(
      'Orange Money needs ORANGE_MONEY_WEBHOOK_SECRET (X-Sonatel-Signature) or ORANGE_MONEY_CALLBACK_API_KEY (the apiKey registered with your callback) to believe its callbacks',
    );
  return {
    apiUrl,
    clientId: credentials[0],
    clientSecret: credentials[1],
    merchantCode,
    merchantName: env.ORANGE_MONEY_MERCHANT_NAME || 'Payment',
    partner: partner && msisdn ? { msisdn, pin: partner[1] } : undefined,
    webhookSecret,
    callbackApiKey,
    callbackUrl: `${publicUrl}/providers/orange_money/callback`,
    // Bounds: a QR code payable for at least a minute (the customer opens the app) and at most the
    // API's day; one HTTP call waits 1 to 60 s (the flow's own deadline may be shorter).
    qrValiditySeconds: integer(env, 'ORANGE_MONEY_QR_VALIDITY_SECONDS', 600, 60, 86_400),
    timeoutMs: integer(env, 'ORANGE_MONEY_TIMEOUT_MS', 15_000, 1_000, 60_000),
  };
}

/**
 * Keys are names, not data: printable ASCII without spaces, short enough that a key stays small
 * (it prefixes every rate-limit window and schedule entry).
 */
function redisKeyPrefix(env: Env): string {
  const prefix = env.REDIS_KEY_PREFIX ?? 'gw:';
  if (!/^[\x21-\x7e]{1,64}$/.test(prefix)) throw new StartupError('REDIS_KEY_PREFIX must be 1 to 64 printable characters without spaces (e.g. gw:staging:)');
  return prefix;
}

/**
 * Deadline of every Redis coordination call (rate-limit hit, scheduler, ping), waiting for a
 * connection included. Redis answers these in well under 1 ms on a LAN, and a busy gateway's event
 * loop may read the reply tens of ms late: 150 ms leaves wide margin for both, so a healthy Redis
 * never trips it, while a stuck one costs a request at most 150 ms, and only the few requests before
 * the breaker opens (after that, calls fail in microseconds). REDIS_CALL_TIMEOUT_MS changes it: a
 * Redis farther away, or hosts whose CPU is shared with heavy neighbours (a test run), need more;
 * past it a call counts as failed and the instance limits requests alone (docs/architecture.md).
 */
export const DEFAULT_REDIS_CALL_TIMEOUT_MS = 150;
/** The longest REDIS_CALL_TIMEOUT_MS: every request may wait this long when Redis stalls. */
const MAX_REDIS_CALL_TIMEOUT_MS = 5_000;

/** WEBHOOK_TIMEOUT_MS unset: how long a receiver has to answer a delivery (gateway listen gives a forward as long). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5_000;

/** GATEWAY_DATA_DIR: the embedded database's folder, and where secrets left unset are kept (the CLI looks there too). */
export const dataDirOf = (env: Env): string => env.GATEWAY_DATA_DIR || './.gateway-data';

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const { port, checkoutPort } = ports(env);
  // 0.0.0.0 is where we listen, not an address a browser can be sent to.
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const primaryUrl = databaseUrl(env);
  const publicUrl = withoutTrailingSlash(env.PUBLIC_URL || `http://${publicHost}:${port}`);
  return {
    host,
    port,
    checkoutPort,
    publicUrl,
    checkoutPublicUrl: withoutTrailingSlash(env.CHECKOUT_PUBLIC_URL || `http://${publicHost}:${checkoutPort}`),
    databaseUrl: primaryUrl,
    replica: replica(env, primaryUrl),
    dataDir: dataDirOf(env),
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: redisKeyPrefix(env),
    redisCallTimeoutMs: integer(env, 'REDIS_CALL_TIMEOUT_MS', DEFAULT_REDIS_CALL_TIMEOUT_MS, 10, MAX_REDIS_CALL_TIMEOUT_MS),
    adminToken: env.GATEWAY_ADMIN_TOKEN || undefined,
    rateLimit: {
      max: integer(env, 'RATE_LIMIT_MAX', 100, 1),
      windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1),
      enabled: onUnlessSwitchedOff(env, 'RATE_LIMIT_ENABLED'),
    },
    webhook: {
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_TIMEOUT_MS, 1),
      retryDelayMs: integer(env, 'WEBHOOK_RETRY_DELAY_MS', 300_000),
      maxRetries: integer(env, 'WEBHOOK_MAX_RETRIES', 3),
      claimMarginMs: integer(env, 'WEBHOOK_CLAIM_MARGIN_MS', 60_000, 0, 3_600_000),
      sweepEveryMs: integer(env, 'WEBHOOK_SWEEP_MS', DEFAULT_WEBHOOK_SWEEP_MS, 100, 600_000),
    },
    sandboxLatencyMs: integer(env, 'SANDBOX_LATENCY_MS', 0),
    providerFlow: {
      timeoutMs: integer(env, 'PROVIDER_TIMEOUT_MS', 30_000, 1, 120_000),
      reconcileAfterMs: integer(env, 'RECONCILE_AFTER_MS', 60_000, 0),
      reconcileIntervalMs: integer(env, 'RECONCILE_INTERVAL_MS', 30_000, 10),
    },
    orangeMoney: orangeMoney(env, publicUrl),
    webhookAllowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    webhookSecretKey: webhookSecretKey(env),
    trustedProxies: trustedProxies(env),
    graphqlPreload: onUnlessSwitchedOff(env, 'GRAPHQL_PRELOAD'),
    logLevel: env.LOG_LEVEL || 'info',
  };
}
