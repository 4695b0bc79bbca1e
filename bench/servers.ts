/**
 * The servers a scenario runs against, started on first use: the gateway exactly as `npm start`
 * runs it, the floors, and a gateway without its rate limiter (for the limiter's cost).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { benchDatabaseUrl } from './database.js';
import { freePort, startServer, type ServerProcess } from './processes.js';
import { FLOOR_COMMAND, GATEWAY_COMMAND, RATE_LIMIT_MAX, REDIS_URL, ROOT } from './settings.js';
import type { BenchData, ServerName } from './shapes.js';

/** The gateway's environment: this database, Redis (or `redisUrl`), a limit it never reaches. */
/**
 * The operator token of the bench's gateways. The checkout form's token key derives from it, so
 * the bench can sign the forms it posts (as the checkout page would have) and the floor checks them.
 */
export const BENCH_ADMIN_TOKEN = `gw_op_bench_${process.pid}`;
/**
 * The key the gateways store webhook secrets under: the webhook dispatch scenario encrypts its
 * endpoints' secrets with it, as the gateway would have (a new one each run; that scenario's rows
 * do not outlive the run).
 */
export const BENCH_WEBHOOK_SECRET_KEY = `bench_webhooks_${randomBytes(24).toString('base64url')}`;

export function gatewayEnv(redisUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: benchDatabaseUrl(),
    REDIS_URL: redisUrl,
    RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    CHECKOUT_PORT: '0',
    GATEWAY_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    GATEWAY_DATA_DIR: path.join(ROOT, 'bench', '.data'),
    NODE_ENV: 'production',
    // The webhook dispatch scenario's receiver is on 127.0.0.1 (only that scenario has endpoints).
    WEBHOOK_SECRET_KEY: BENCH_WEBHOOK_SECRET_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    // The link form scenario's customers come through a proxy on loopback, each from its own
    // address (X-Forwarded-For): the form's throttle counts per address, as behind a real proxy.
    TRUSTED_PROXIES: 'loopback',
    ...extra,
  };
}

export const startGateway = (name: string, env: Record<string, string>, nodeArgs: readonly string[] = []) =>
  startServer(name, [...nodeArgs, ...GATEWAY_COMMAND.nodeArgs], env);

/**
 * "Limiter off" for the limiter's cost. The gateway has no switch for it yet: RATE_LIMIT_ENABLED=false
 * is tried first (proposed), and if answers still carry RateLimit headers, the gateway is restarted
 * against a closed Redis port, where the limiter fails open through its open circuit breaker
 * (microseconds, no Redis round trip): the nearest thing to "off" without changing src/.
 */
async function startGatewayWithoutLimiter(data: BenchData, note: (method: string) => void): Promise<ServerProcess> {
  const switched = await startGateway('gateway (RATE_LIMIT_ENABLED=false)', gatewayEnv(REDIS_URL, { RATE_LIMIT_ENABLED: 'false' }));
  const probe = await fetch(`${switched.url}/api/v2/transactions/${data.ids[0]}`, { headers: { authorization: `Bearer ${data.key}` } });
  if (!probe.headers.has('ratelimit-limit')) {
    note('RATE_LIMIT_ENABLED=false');
    return switched;
  }
  await switched.stop();
  note('RATE_LIMIT_ENABLED is not honoured: limiter on a closed Redis port (open breaker, no Redis call: the in-process window of an outage)');
  return startGateway('gateway (limiter failing open)', gatewayEnv(`redis://127.0.0.1:${await freePort()}`));
}

/** Servers start on first use and all stop at the end. */
export class Servers {
  private readonly started = new Map<ServerName, Promise<ServerProcess>>();
  /** Servers measured at least once (their first warm-up is longer). */
  readonly warmed = new Set<ServerName>();
  /** How "limiter off" was obtained, for the report. */
  limiterOff = 'not measured';
  /** The gateway's CHECKOUT_PORT, chosen when it starts. */
  private checkoutPort = 0;
  private readonly starters: Record<ServerName, () => Promise<ServerProcess>>;

  constructor(data: BenchData, gatewayNodeArgs: readonly string[]) {
    this.starters = {
      gateway: async () => {
        this.checkoutPort = await freePort();
        return startGateway('gateway', gatewayEnv(REDIS_URL, { CHECKOUT_PORT: String(this.checkoutPort) }), gatewayNodeArgs);
      },
      // The same process, reached on its checkout origin (the customer's side); stopping it stops nothing.
      checkout: async () => {
        const gateway = await this.get('gateway');
        return { ...gateway, name: 'gateway (checkout origin)', url: `http://127.0.0.1:${this.checkoutPort}`, stop: async () => undefined };
      },
      floors: () => startServer('floors', FLOOR_COMMAND.nodeArgs, { DATABASE_URL: benchDatabaseUrl(), FORM_SECRET: BENCH_ADMIN_TOKEN }),
      gatewayWithoutLimiter: () => startGatewayWithoutLimiter(data, (method) => (this.limiterOff = method)),
    };
  }

  get(name: ServerName): Promise<ServerProcess> {
    let server = this.started.get(name);
    if (!server) {
      server = this.starters[name]();
      this.started.set(name, server);
    }
    return server;
  }

  async stop(name: ServerName): Promise<void> {
    await (await this.started.get(name))?.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.started.values()].map(async (server) => (await server).stop()));
  }
}
