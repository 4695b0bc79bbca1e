/**
 * Composition root: configuration -> infrastructure -> servers. `npm start` runs this.
 * Applies pending migrations first; shuts down gracefully on SIGTERM/SIGINT.
 */
import { createServer } from 'node:net';
import { loadConfig } from './config.js';
import { CallerCache } from './domain/access/callerCache.js';
import { systemClock, type GatewayContext } from './domain/context.js';
import { SwitchCache } from './domain/organizations/switches.js';
import { buildApp } from './http/app.js';
import { createLogger } from './http/logging.js';
import { buildCheckoutApp } from './checkout/app.js';
import { startBackgroundJobs } from './jobs/background.js';
import { deriveWebhookSecretKey } from './domain/webhooks/secrets.js';
import { adminTokenSource } from './infra/adminToken.js';
import { announceGatewayInDataFolder } from './infra/localGateway.js';
import { databaseFingerprintStore, resolveSharedSecret } from './infra/sharedSecrets.js';
import { webhookSecretKeySource } from './infra/webhookSecretKey.js';
import { createLocalCoordination } from './infra/local/coordination.js';
import { openDatabase, type Database } from './infra/prisma/database.js';
import { openReplica } from './infra/prisma/replica.js';
import { migrationsUpToDate } from './infra/prisma/migrationStatus.js';
import { createSandboxProvider } from './infra/providers/sandbox.js';
import { createProviderRouter } from './infra/providers/router.js';
import { PROVIDER_SECRET_VARIABLES, providersFromEnv } from './infra/providers/fromEnv.js';
import { providerStatuses } from './domain/providerCalls/providerHealth.js';
import { openProviderCallCounts } from './domain/providerFlow.js';
import { listenStartupError, passwordOf, startupFailureReport } from './infra/startupErrors.js';

/** How long in-flight requests get to finish on shutdown before we exit anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** A failed start closes what it opened (PGlite flushes, its lock goes) but never hangs on it. */
const FAILED_START_CLEANUP_MS = 3_000;

/** Binds and releases `port` on `host`, throwing the one-line listen error when it cannot. */
async function probePort(host: string, port: number, variable: 'PORT' | 'CHECKOUT_PORT'): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => server.close(() => resolve()));
  }).catch((error: unknown) => {
    throw listenStartupError(error, { host, port, variable });
  });
}

/** Loads Prisma's schema engine (its WASM and glue) only now that a migration is pending. */
async function pendingMigrationsApplied(db: Database): Promise<string[]> {
  const { applyMigrations } = await import('./infra/prisma/migrate.js');
  return applyMigrations(db.adapterFactory);
}

/** What a failed start must close, most recent last. */
const openedSoFar: Array<() => Promise<unknown>> = [];

async function main(): Promise<void> {
  const config = loadConfig();
  // No phone number nor credential in a log line: see http/logging.ts.
  const log = createLogger(config.logLevel);
  // A busy port is the commonest start-up mistake: say so at once, not after the database opened
  // and migrated (8-13 s on a new embedded folder). The real listen below still reports a late race.
  await probePort(config.host, config.port, 'PORT');
  await probePort(config.host, config.checkoutPort, 'CHECKOUT_PORT');

  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    onLockTakenOver: (description) => log.warn({ dataDir: config.dataDir }, description),
  });
  openedSoFar.push(() => db.close());
  log.info({ database: db.kind, dataDir: db.kind === 'pglite' ? config.dataDir : undefined, fromTemplate: db.fromTemplate || undefined }, 'database opened');
  const applied = (await migrationsUpToDate(db)) ? [] : await pendingMigrationsApplied(db);
  log.info({ applied }, applied.length ? 'migrations applied' : 'database schema is up to date');
  // The read replica (docs/read-replica.md) is never migrated: a standby replays the primary's
  // schema and refuses writes. config.ts refuses it without DATABASE_URL, so db.pool is there.
  const replica =
    config.replica && config.databaseUrl && db.pool
      ? await openReplica({ ...config.replica, primaryUrl: config.databaseUrl, primary: db.pool, log })
      : undefined;
  if (replica) {
    openedSoFar.push(() => replica.close());
    log.info({ replica: replica.status(), maxLagMs: config.replica?.maxLagMs }, 'read replica opened');
  }

  // ioredis is imported only when Redis is configured: an embedded start does not load it.
  const coordination = config.redisUrl
    ? (await import('./infra/redis/coordination.js')).createRedisCoordination({
        url: config.redisUrl,
        keyPrefix: config.redisKeyPrefix,
        callTimeoutMs: config.redisCallTimeoutMs,
        rateLimit: config.rateLimit,
        onError: (err) => log.warn({ err }, 'redis error'),
      })
    : createLocalCoordination({ rateLimit: config.rateLimit });
  openedSoFar.push(() => coordination.health.close());
  if (coordination.kind === 'local') log.warn('REDIS_URL is unset: in-process coordination, valid for ONE instance only');
  if (!config.rateLimit.enabled)
    log.warn('RATE_LIMIT_ENABLED=false: the API rate limit is left to a proxy in front of the gateway (sign-in throttling stays on)');

  // Secrets every host sharing the database must share: checked against the fingerprints the
  // first host recorded there (sharedSecrets.ts); a host that would use its own refuses to start.
  const fingerprints = db.kind === 'postgres' ? databaseFingerprintStore(db.prisma) : undefined;
  const operator = await resolveSharedSecret('GATEWAY_ADMIN_TOKEN', config.adminToken, adminTokenSource(config.dataDir), fingerprints);
  const adminToken = operator.value;
  // Printed once, on creation, to the terminal of whoever started the gateway (not to the log).
  if (operator.source === 'created')
    process.stdout.write(`\nOperator token (GATEWAY_ADMIN_TOKEN), stored in ${adminTokenSource(config.dataDir).where}:\n  ${adminToken}\n\n`);

  const webhookKeySource = webhookSecretKeySource(config.dataDir);
  const webhookSecret = await resolveSharedSecret('WEBHOOK_SECRET_KEY', config.webhookSecretKey, webhookKeySource, fingerprints);
  if (webhookSecret.source !== 'environment') {
    const message =
      'WEBHOOK_SECRET_KEY is unset: webhook secrets are encrypted under the key stored in this file (instances sharing a database must share one key)';
    if (webhookSecret.source === 'created') log.warn({ file: webhookKeySource.where }, message);
    else log.info({ file: webhookKeySource.where }, message);
  }
  const webhookKey = { key: deriveWebhookSecretKey(webhookSecret.value) };
  const webhooks = { ...config.webhook, allowPrivateUrls: config.webhookAllowPrivateUrls, secretKey: webhookKey.key };

  // Each method's real provider when its credentials are set, else the sandbox (fromEnv.ts).
  const provider = createProviderRouter(createSandboxProvider({ db: db.prisma, latencyMs: config.sandboxLatencyMs }), providersFromEnv(process.env, log));
  if (provider.realMethods().length) log.info({ methods: provider.realMethods() }, 'real wallet providers configured; other methods use the sandbox');
  const ctx: GatewayContext = {
    db: db.prisma,
    replica: replica?.prisma,
    clock: systemClock,
    coordination,
    settings: {
      checkoutPublicUrl: config.checkoutPublicUrl,
      publicUrl: config.publicUrl,
      webhooks,
      providerTimeoutMs: config.providerFlow.timeoutMs,
      reconcileAfterMs: config.providerFlow.reconcileAfterMs,
      reconcileIntervalMs: config.providerFlow.reconcileIntervalMs,
      apiRateLimit: config.rateLimit.enabled,
    },
    log,
    provider,
  };
  ctx.callers = new CallerCache(coordination.invalidations);
  ctx.switches = new SwitchCache(coordination.invalidations);
  const ready = async () => ({ database: await db.ping(), coordinator: await coordination.health.ping() });
  const { trustedProxies, graphqlPreload } = config;
  const api = await buildApp({
    ctx,
    adminToken,
    ready,
    logger: log,
    metrics: {
      poolStats: db.poolStats,
      openProviderCalls: () => openProviderCallCounts(ctx),
      providerHealth: () => providerStatuses(ctx),
      replica: replica && (() => replica.status()),
    },
    trustedProxies,
    graphqlPreload,
  });
  // Every instance must accept the forms another served (a load balancer, a restart): the form
  // token key is derived from the one secret all instances share.
  const checkout = await buildCheckoutApp({ ctx, logger: log, formSecret: adminToken, trustedProxies });
  openedSoFar.push(
    () => api.close(),
    () => checkout.close(),
  );

  // The handlers are in place before the first answer: a SIGTERM right after the gateway starts
  // answering (an orchestrator's quick restart) stops it gracefully, as it would later, instead of
  // killing it by the signal's default action with the database open.
  let stopBackgroundJobs: (() => Promise<unknown>) | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new requests, finishing in-flight ones');
    const jobsStopped = stopBackgroundJobs?.();
    const forceExit = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    forceExit.unref();
    await Promise.allSettled([api.close(), checkout.close(), jobsStopped]);
    await Promise.allSettled([coordination.health.close(), replica?.close(), db.close()]);
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const { host } = config;
  await api.listen({ host, port: config.port }).catch((error: unknown) => {
    throw listenStartupError(error, { host, port: config.port, variable: 'PORT' });
  });
  await checkout.listen({ host, port: config.checkoutPort }).catch((error: unknown) => {
    throw listenStartupError(error, { host, port: config.checkoutPort, variable: 'CHECKOUT_PORT' });
  });
  await announceGatewayInDataFolder({ embedded: db.kind === 'pglite', dataDir: config.dataDir, url: config.publicUrl, log });
  // Once both servers listen: their first queries (and Prisma's engine, which the first one loads)
  // no longer delay the listen, and a start that fails to listen has no job to stop.
  if (!stopping) stopBackgroundJobs = startBackgroundJobs(ctx);
  process.stdout.write(
    [
      `Gateway API      ${config.publicUrl}  (REST ${config.publicUrl}/api/v2, GraphQL ${config.publicUrl}/graphql)`,
      `Dashboard        ${config.publicUrl}/dashboard  (merchants; invite one with: npx gateway user invite --org ID --email E)`,
      `Checkout         ${config.checkoutPublicUrl}`,
      `Database         ${db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : `PostgreSQL${replica ? ' (lists read a replica)' : ''}`}`,
      `Coordination     ${coordination.kind}`,
      '',
    ].join('\n'),
  );
}

/** Closes, newest first, whatever the failed start had opened; bounded so a stuck close cannot hang the exit. */
async function closeOpenedSoFar(): Promise<void> {
  const closeAll = (async () => {
    for (const close of openedSoFar.reverse()) await close().catch(() => undefined);
  })();
  await Promise.race([closeAll, new Promise((resolve) => setTimeout(resolve, FAILED_START_CLEANUP_MS).unref())]);
}

// One line on stderr and exit code 1; the whole error only when debugging (see startupErrors.ts).
main().catch(async (error: unknown) => {
  const debug = ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
  const secrets = [
    passwordOf(process.env.DATABASE_URL),
    passwordOf(process.env.DATABASE_REPLICA_URL),
    process.env.GATEWAY_ADMIN_TOKEN,
    process.env.WEBHOOK_SECRET_KEY,
    ...PROVIDER_SECRET_VARIABLES.map((name) => process.env[name]),
  ].filter((secret): secret is string => !!secret);
  process.stderr.write(startupFailureReport(error, { debug, secrets }));
  await closeOpenedSoFar();
  process.exit(1);
});
