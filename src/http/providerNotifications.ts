/**
 * Where wallet providers call the gateway (docs/providers.md):
 *   POST /providers/wave/webhook           Wave's webhooks
 *   POST /providers/orange_money/callback  Orange Money's notifications
 *
 * A thin adapter: the body is read RAW (the signature covers the exact bytes, so nothing may parse
 * and re-serialise it first), the method's provider verifies and reads it, and the domain settles
 * each event through the provider flow (domain/providerNotifications.ts). Answers: 200 once
 * settled (a duplicate or a replay too: it changes nothing), 401 when not signed by the provider,
 * 400 when unreadable, 404 for a method without a real provider, 500 when settling failed (the
 * provider sends it again; the settlement is idempotent).
 */
import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../domain/context.js';
import { NotificationRejected, type ProviderNotification } from '../domain/ports.js';
import { settleProviderNotification } from '../domain/providerNotifications.js';
import type { PaymentMethod } from '../generated/prisma/enums.js';
import { providerForMethod } from '../infra/providers/router.js';

/** A provider's notification is one small JSON event; 64 kB is far above any of them. */
const NOTIFICATION_BODY_LIMIT = 64 * 1024;

const ROUTES: ReadonlyArray<{ method: PaymentMethod; path: string }> = [
  { method: 'wave', path: '/providers/wave/webhook' },
  { method: 'orange_money', path: '/providers/orange_money/callback' },
];

export async function registerProviderNotificationRoutes(app: FastifyInstance, ctx: GatewayContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: NOTIFICATION_BODY_LIMIT }, (_request, body, done) => done(null, body));
    for (const { method, path } of ROUTES) {
      scope.post(path, async (request, reply) => {
        const provider = providerForMethod(ctx.provider, method);
        if (!provider.parseNotification) return reply.code(404).send({ error: `${method} has no real provider configured` });
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        let events: ProviderNotification[];
        try {
          events = provider.parseNotification({ headers: request.headers, rawBody });
        } catch (error) {
          if (!(error instanceof NotificationRejected)) throw error;
          ctx.log.warn({ method, requestId: request.id, why: error.message }, 'a provider notification was refused');
          return reply.code(error.status).send({ error: error.status === 401 ? 'Invalid signature' : 'Invalid notification' });
        }
        for (const event of events) await settleProviderNotification(ctx, method, event);
        return reply.code(200).send({ received: true });
      });
    }
  });
}
