/**
 * How a live stream ends: when its client goes away (nothing is left behind in the gateway), and at
 * once when the merchant key (or issued operator token) it was opened with is revoked or its organisation is blocked (access is
 * not only checked when subscribing); one asked without SSE (406) holds no place for long; and
 * when the server closes (open streams are completed, so they do not hold the shutdown).
 */
import { describe, expect, it } from 'vitest';
import { revokeApiKey, updateOrganization } from '../../../src/domain/operations.js';
import { UNREAD_GRACE_MS, liveSubscriberCount } from '../../../src/domain/liveUpdates/events.js';
import { sha256Hex } from '../../../src/domain/access/auth.js';
import { startGateway, useGateway } from '../../support/gateway.js';
import { TRANSACTION_STATUS_CHANGED, subscribe } from '../../support/sse.js';
import { RevokeOperatorTokenDocument } from '../../support/graphql/generated.js';
import { graphqlTyped, issueOperatorToken } from '../../support/graphql/typed.js';

const gateway = useGateway({ redis: true });

async function eventually(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the end of a live stream', () => {
  // This one waits out the 10 s grace: it runs beside the others, on a gateway of its own (it counts
  // that gateway's subscribers), so the file holds its worker ~10 s, not ~15.
  it.concurrent(
    'is not held open for a subscription asked for JSON (406): its place is freed after the grace',
    async () => {
      const own = await startGateway({ redis: true });
      try {
        const { key } = await own.merchant();
        const before = liveSubscriberCount(own.ctx);
        const response = await fetch(`${own.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ query: TRANSACTION_STATUS_CHANGED }),
        });
        expect(response.status).toBe(406);
        await response.arrayBuffer();
        await eventually(() => liveSubscriberCount(own.ctx) === before, UNREAD_GRACE_MS + 2_000);
      } finally {
        await own.close();
      }
    },
    UNREAD_GRACE_MS + 10_000,
  );

  describe('the others, one at a time', { concurrent: true }, () => {
    it.sequential('leaves nothing behind once the client disconnects', async () => {
      const { key } = await gateway.merchant();
      const before = liveSubscriberCount(gateway.ctx);
      const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
      expect(liveSubscriberCount(gateway.ctx)).toBe(before + 1);
      live.close();
      await eventually(() => liveSubscriberCount(gateway.ctx) === before);
    });

    it.sequential('comes at once when its key is revoked', async () => {
      const { key } = await gateway.merchant();
      const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
      const apiKey = await gateway.ctx.db.apiKey.findFirstOrThrow({ where: { keyDigest: sha256Hex(key) } });
      await revokeApiKey(gateway.ctx, gateway.operator, apiKey.id);
      await eventually(() => live.ended, 1_000);
      // And it cannot subscribe again.
      expect((await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key)).status).toBe(401);
    });

    it.sequential('comes at once when its organisation is blocked', async () => {
      const { organization, key } = await gateway.merchant();
      const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
      await updateOrganization(gateway.ctx, gateway.operator, organization.id, { status: 'blocked' });
      await eventually(() => live.ended, 1_000);
      const again = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, key);
      expect((await again.next(1_000)).payload.errors?.[0]?.extensions?.code).toBe('ORGANIZATION_BLOCKED');
      again.close();
    });

    it.sequential('comes at once when the operator token it was opened with is revoked', async () => {
      const analyst = await issueOperatorToken(gateway, 'analyst');
      const live = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, analyst);
      const issued = await gateway.ctx.db.operatorToken.findFirstOrThrow({ where: { tokenDigest: sha256Hex(analyst) } });
      const revoked = await graphqlTyped(gateway, RevokeOperatorTokenDocument, { id: issued.id }, gateway.adminToken);
      expect(revoked.body.errors).toBeUndefined();
      await eventually(() => live.ended, 1_000);
      expect((await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, analyst)).status).toBe(401);
    });

    it.sequential('does not come for an operator’s stream when a merchant key is revoked', async () => {
      const { key } = await gateway.merchant();
      const operator = await subscribe(gateway.url, TRANSACTION_STATUS_CHANGED, {}, gateway.adminToken);
      try {
        const apiKey = await gateway.ctx.db.apiKey.findFirstOrThrow({ where: { keyDigest: sha256Hex(key) } });
        await revokeApiKey(gateway.ctx, gateway.operator, apiKey.id);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(operator.ended).toBe(false);
      } finally {
        operator.close();
      }
    });

    it.sequential('comes when the server closes: open streams are completed and do not hold the close', async () => {
      const own = await startGateway({ redis: true });
      let closed = false;
      try {
        const { key } = await own.merchant();
        const live = await subscribe(own.url, TRANSACTION_STATUS_CHANGED, {}, key);
        const started = Date.now();
        await own.close();
        closed = true;
        expect(Date.now() - started).toBeLessThan(2_000);
        await eventually(() => live.ended, 1_000);
      } finally {
        if (!closed) await own.close();
      }
    });
  });
});
