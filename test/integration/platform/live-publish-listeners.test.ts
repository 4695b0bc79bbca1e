/**
 * Live events are published only while some instance listens (src/infra/redis/coordination.ts):
 * once a PUBLISH reaches nobody, an instance stops sending them, and starts again when an instance
 * announces that it listens, also after that listener's connection was cut and came back. An
 * instance that cannot hear the announcements keeps publishing. On a redis-server of this file's
 * own, so the server's PUBLISH count is this file's alone.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Coordination } from '../../../src/domain/ports.js';
import { createRedisCoordination } from '../../../src/infra/redis/coordination.js';
import { startRedisServer, type RedisServer } from '../../support/faults/cluster.js';
import { waitFor } from '../../support/processes.js';

const PREFIX = 'lp:';
const rateLimit = { max: 100, windowMs: 1_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: RedisServer;
let admin: Redis;
const opened: Coordination[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
});

afterAll(async () => {
  await Promise.all(opened.map((coordination) => coordination.health.close()));
  admin.disconnect();
  await server.stop();
});

/** An instance; `hearing`: subscribed to the invalidations (as every gateway is), and confirmed receiving. */
async function instance(hearing: boolean): Promise<Coordination> {
  const coordination = createRedisCoordination({ url: server.url, keyPrefix: PREFIX, rateLimit });
  opened.push(coordination);
  if (hearing) {
    coordination.invalidations.subscribe(() => undefined);
    await waitFor(async () => coordination.invalidations.receiving?.() === true, 5_000);
  }
  return coordination;
}

/** PUBLISHes the server has run so far (announcements included). */
async function publishesOnServer(): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(/cmdstat_publish:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('live events are published only while someone listens', () => {
  it('stops after a PUBLISH reaches nobody, starts again when an instance listens, and again after its connection came back', async () => {
    const publisher = await instance(true);
    await publisher.liveEvents.publish('first');
    const afterFirst = await publishesOnServer();
    for (const message of ['second', 'third', 'fourth']) await publisher.liveEvents.publish(message);
    expect(await publishesOnServer()).toBe(afterFirst); // nobody listens: nothing sent

    const listener = await instance(true);
    const heard: string[] = [];
    await listener.liveEvents.subscribe((message) => heard.push(message));
    await sleep(100); // the announcement reaches the publisher (milliseconds; see the window in coordination.ts)
    await publisher.liveEvents.publish('fifth');
    await waitFor(async () => heard.includes('fifth'), 2_000);

    // The listener's live connection is cut; meanwhile a PUBLISH reaches nobody and the publisher
    // stops. Back, the listener announces itself again, and hears what follows.
    const clients = await admin.client('LIST');
    const live = /id=(\d+) [^\n]*name=lp:live /.exec(String(clients));
    expect(live, String(clients)).not.toBeNull();
    await admin.client('KILL', 'ID', live![1]!);
    await publisher.liveEvents.publish('while away');
    await waitFor(async () => /name=lp:live /.test(String(await admin.client('LIST'))), 5_000);
    await sleep(300); // resubscribed, pinged, announced
    await publisher.liveEvents.publish('back');
    await waitFor(async () => heard.includes('back'), 2_000);
  });

  it('keeps publishing when it does not hear the announcements', async () => {
    const deaf = await instance(false);
    const before = await publishesOnServer();
    for (const message of ['one', 'two', 'three']) await deaf.liveEvents.publish(message);
    expect(await publishesOnServer()).toBe(before + 3);
  });
});
