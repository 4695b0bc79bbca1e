/**
 * Composition root: configuration -> infrastructure -> servers. `npm start` runs this.
 * Applies pending migrations first; shuts down gracefully on SIGTERM/SIGINT.
 */
import pino from 'pino';
import { loadConfig } from './config.js';
import { CallerCache } from './domain/callerCache.js';
import { systemClock, type GatewayContext } from './domain/context.js';
import { purgeExpiredIdempotencyKeys } from './domain/idempotency.js';
import { buildApp } from './http/app.js';
import { buildCheckoutApp } from './checkout/app.js';
import { loadOrCreateAdminToken } from './infra/adminToken.js';
import { createLocalCoordination } from './infra/local/coordination.js';
import { openDatabase } from './infra/prisma/database.js';
import { applyMigrations } from './infra/prisma/migrate.js';
import { migrationsUpToDate } from './infra/prisma/migrationStatus.js';
import { createRedisCoordination } from './infra/redis/coordination.js';

/** How long in-flight requests get to finish on shutdown before we exit anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** Idempotency keys live 24 h; purging hourly keeps the table to about a day of keys. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'adminToken', 'token', 'secret'] });

  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  log.info({ database: db.kind, dataDir: db.kind === 'pglite' ? config.dataDir : undefined }, 'database opened');
  const applied = (await migrationsUpToDate(db.prisma)) ? [] : await applyMigrations(db.adapterFactory);
  log.info({ applied }, applied.length ? 'migrations applied' : 'database schema is up to date');

  const coordination = config.redisUrl
    ? createRedisCoordination({ url: config.redisUrl, rateLimit: config.rateLimit, onError: (err) => log.warn({ err }, 'redis error') })
    : createLocalCoordination({ rateLimit: config.rateLimit });
  if (coordination.kind === 'local') log.warn('REDIS_URL is unset: in-process coordination, valid for ONE instance only');

  let adminToken = config.adminToken ?? null;
  if (!adminToken) {
    const stored = await loadOrCreateAdminToken(config.dataDir);
    adminToken = stored.token;
    // Printed once, on creation, to the terminal of whoever started the gateway (not to the log).
    if (stored.created) process.stdout.write(`\nOperator token (GATEWAY_ADMIN_TOKEN), stored in ${stored.file}:\n  ${stored.token}\n\n`);
  }

  const ctx: GatewayContext = { db: db.prisma, clock: systemClock, coordination, settings: { checkoutPublicUrl: config.checkoutPublicUrl }, log };
  ctx.callers = new CallerCache(coordination.invalidations);
  const ready = async () => ({ database: await db.ping(), coordinator: await coordination.health.ping() });
  const api = await buildApp({ ctx, adminToken, ready, logger: log, metrics: { poolStats: db.poolStats } });
  const checkout = await buildCheckoutApp({ ctx, logger: log });

  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(ctx).catch((err: unknown) => log.warn({ err }, 'could not purge expired idempotency keys'));
  }, IDEMPOTENCY_PURGE_INTERVAL_MS);
  purge.unref();

  await api.listen({ host: config.host, port: config.port });
  await checkout.listen({ host: config.host, port: config.checkoutPort });
  process.stdout.write(
    [
      `Gateway API      ${config.publicUrl}  (REST ${config.publicUrl}/api/v2, GraphQL ${config.publicUrl}/graphql)`,
      `Checkout         ${config.checkoutPublicUrl}`,
      `Database         ${db.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'}`,
      `Coordination     ${coordination.kind}`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new requests, finishing in-flight ones');
    clearInterval(purge);
    const forceExit = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    forceExit.unref();
    await Promise.allSettled([api.close(), checkout.close()]);
    await Promise.allSettled([coordination.health.close(), db.close()]);
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error('gateway failed to start:', error);
  process.exit(1);
});
