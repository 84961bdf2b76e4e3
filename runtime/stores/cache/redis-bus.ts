// The invalidation bus of processes sharing Redis: Redis pub/sub on one channel. Messages go out over the
// stores' command connection; they are heard on a connection of the bus's own (a subscribed connection takes
// no other commands), which reconnects forever like the stores' one. Liveness and epochs: bus-health.ts.
import { closeRedis, type RedisClient } from '../redis/client.js';
import { redisCall } from '../redis/errors.js';
import type { InvalidationBus } from './bus.js';
import { BusHealth, busSettings, type BusOptions } from './bus-health.js';

export const DEFAULT_REDIS_BUS_CHANNEL = 'svc:invalidate';

export type RedisBusOptions = BusOptions;

/**
 * A bus over `client` (the stores' connection, left open by close()). Resolves once the first connection
 * attempt of its listening connection ended, subscribed or not: Redis may be down at start (isUp false until
 * it is back).
 */
export async function openRedisBus(
  client: RedisClient,
  options: RedisBusOptions = {},
): Promise<InvalidationBus> {
  const settings = busSettings(options, 'openRedisBus()', DEFAULT_REDIS_BUS_CHANNEL);
  const { channel } = settings;
  // Subscribed by hand on every 'ready' rather than by ioredis's auto-resubscribe: the heartbeat that proves
  // the path must go out after the SUBSCRIBE was answered, not race it.
  const subscriber = client.duplicate({ lazyConnect: true, autoResubscribe: false });
  // Without a listener, an 'error' event would crash the process; the outage shows as isUp false.
  subscriber.on('error', () => undefined);

  let subscribing = false;
  const subscribeIfReady = async (): Promise<void> => {
    if (subscribing || subscriber.status !== 'ready' || subscriber.mode === 'subscriber') return;
    subscribing = true;
    try {
      await subscriber.subscribe(channel);
      // The connection may have dropped while SUBSCRIBE was answered.
      if (subscriber.status === 'ready') health.listeningStarted();
    } catch {
      // The connection closed (it reconnects and comes back here) or refused: retried on the next tick.
    } finally {
      subscribing = false;
    }
  };

  const health = new BusHealth(
    async (message) => {
      await redisCall(() => client.publish(channel, message));
    },
    settings,
    () => void subscribeIfReady(),
  );

  subscriber.on('ready', () => void subscribeIfReady());
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel) health.received(message);
  });
  subscriber.on('close', () => health.listeningStopped());
  subscriber.on('end', () => health.listeningStopped());

  // A failed first attempt is no failure: the retry strategy keeps trying.
  await subscriber.connect().catch(() => undefined);
  await subscribeIfReady();
  health.start();
  return health.asBus(async () => {
    // Closing the connection ends the subscription with it.
    await closeRedis(subscriber);
  });
}
