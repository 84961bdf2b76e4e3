// The Redis invalidation bus on a real Redis (REDIS_URL, default redis://127.0.0.1:6379), each bus on a client
// of its own standing for one process: messages reach the other processes, a lost or silent subscription is
// noticed (down, new epoch, '*') and recovered from, and a publish Redis refused is retried until it is sent.
// The outage tests run a private `redis-server` on a free port, so pausing or stopping it disturbs no other file.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeRedis, openRedis, type RedisClient } from '../../../runtime/stores/redis/client.js';
import { EVERYTHING, type InvalidationBus } from '../../../runtime/stores/cache/bus.js';
import { openRedisBus, type RedisBusOptions } from '../../../runtime/stores/cache/redis-bus.js';
import { busDeliveryContract } from './bus-delivery-contract.js';
import { heard, isUp, until } from './bus-watch.js';
import { rejectionOf } from '../contracts/rejection.js';
import { freePort, startRedis, type TestRedis } from '../../backends.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * Slow enough that a loaded machine's pauses never make a bus miss a beat, and too slow to explain what a test
 * sees within a fraction of it: a bus comes up, goes down and comes back through events, not through ticks.
 */
const HEARTBEAT_MS = 1000;
/** For the one test that waits for heartbeats to be missed. */
const FAST_HEARTBEAT_MS = 100;

const clients: RedisClient[] = [];
const buses: InvalidationBus[] = [];
const servers: TestRedis[] = [];

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
  await Promise.all(clients.splice(0).map((client) => closeRedis(client)));
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});

function uniqueChannel(): string {
  return `svc-test:bus:${randomUUID()}`;
}

async function client(url = REDIS_URL, connectionName?: string): Promise<RedisClient> {
  const opened = await openRedis(url);
  clients.push(opened);
  if (connectionName === undefined) return opened;
  // The bus's listening connection copies its client's options, name included: a test can find it by name.
  const named = opened.duplicate({ connectionName });
  named.on('error', () => undefined);
  clients.push(named);
  await named.connect().catch(() => undefined);
  return named;
}

async function bus(redis: RedisClient, options: RedisBusOptions): Promise<InvalidationBus> {
  const opened = await openRedisBus(redis, { heartbeatMs: HEARTBEAT_MS, ...options });
  buses.push(opened);
  return opened;
}

describe('openRedisBus: delivery', () => {
  busDeliveryContract(async (channel) => bus(await client(), { channel }), uniqueChannel);

  it('waits at most two beats for a process that heartbeats but never acknowledges', async () => {
    const channel = uniqueChannel();
    const fast = 100;
    const a = await bus(await client(), { channel, heartbeatMs: fast });
    await until(() => isUp(a));
    // A process that is alive on the channel but applies nothing (its listener is stuck).
    const ghost = await client();
    await ghost.publish(channel, `ghost-process h ${Date.now()} 1`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // A has heard it
    let started = Date.now();
    await a.publish('session:x');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(2 * fast - 10);
    expect(waited).toBeLessThan(2 * fast + 500);
    // Gone quiet for two beats, it is no longer waited for.
    await new Promise((resolve) => setTimeout(resolve, 3 * fast));
    started = Date.now();
    await a.publish('session:y');
    expect(Date.now() - started).toBeLessThan(fast);
  });

  it('comes up soon after open, in a new epoch', async () => {
    // A heartbeat goes out as soon as the subscription is answered, not a heartbeat period later.
    const b = await bus(await client(), { channel: uniqueChannel() });
    const onB = heard(b);
    const epochAtOpen = b.epoch;
    await until(() => isUp(b), HEARTBEAT_MS / 4);
    expect(b.epoch).toBe(epochAtOpen + 1);
    expect(onB).toEqual([EVERYTHING]);
  });

  it('ignores what is published on other channels', async () => {
    const a = await bus(await client(), { channel: uniqueChannel() });
    const b = await bus(await client(), { channel: uniqueChannel() });
    await until(() => isUp(a) && isUp(b));
    const onB = heard(b);
    await a.publish('user:1');
    await b.publish('user:2');
    await until(() => onB.includes('user:2'));
    expect(onB).toEqual(['user:2']);
  });

  it('refuses unknown options and bad values', async () => {
    const redis = await client();
    await expect(openRedisBus(redis, { heartbeat: 5 } as RedisBusOptions)).rejects.toMatchObject({
      code: 'OPTION_UNKNOWN',
    });
    for (const options of [{ heartbeatMs: 0 }, { retryForMs: 1.5 }, { channel: '' }]) {
      await expect(openRedisBus(redis, options)).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    }
  });
});

describe('openRedisBus: outages', () => {
  it('goes down when its subscription is killed, tells "*", and comes back in a new epoch', async () => {
    const channel = uniqueChannel();
    const name = `svc-test-bus-${randomUUID()}`;
    const admin = await client();
    const a = await bus(await client(), { channel });
    const b = await bus(await client(REDIS_URL, name), { channel });
    await until(() => isUp(a) && isUp(b));
    const onB = heard(b);
    const upEpoch = b.epoch;
    const epochOfA = a.epoch;

    const list = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
    const ids = list
      .split('\n')
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => /^id=(\d+)/.exec(line)?.[1]);
    expect(ids).toHaveLength(1);
    await admin.call('CLIENT', 'KILL', 'ID', ids[0] as string);

    // Noticed from the closed connection, long before a heartbeat would be missed; back up as soon as it has
    // subscribed again, which is also before the next heartbeat tick.
    await until(() => !isUp(b), HEARTBEAT_MS / 4);
    expect(b.epoch).toBe(upEpoch + 1);
    expect(onB).toEqual([EVERYTHING]);

    await until(() => isUp(b), HEARTBEAT_MS / 2);
    expect(b.epoch).toBe(upEpoch + 2);
    expect(onB).toEqual([EVERYTHING, EVERYTHING]);
    // Subscribed again: the other process's messages arrive.
    await a.publish('session:abc');
    await until(() => onB.includes('session:abc'));
    // The other process never noticed anything.
    expect(a.epoch).toBe(epochOfA);
  });

  it('goes down within two heartbeats when its heartbeats silently stop, and back up after', async () => {
    const redis = await startRedis();
    servers.push(redis);
    const url = redis.url;
    const admin = await client(url);
    const b = await bus(await client(url), { channel: uniqueChannel(), heartbeatMs: FAST_HEARTBEAT_MS });
    await until(() => isUp(b));
    const onB = heard(b);
    const upEpoch = b.epoch;

    // PUBLISH waits while writes are paused; every connection stays open.
    const paused = Date.now();
    await admin.call('CLIENT', 'PAUSE', '600', 'WRITE');
    // Two beats after the last one heard (which came before the pause), with room for polling.
    await until(() => !isUp(b), 6 * FAST_HEARTBEAT_MS);
    expect(Date.now() - paused).toBeLessThan(3 * FAST_HEARTBEAT_MS);
    // The next heartbeat tick turns the silence into an epoch, as a closed connection would.
    await until(() => b.epoch === upEpoch + 1, 2 * FAST_HEARTBEAT_MS);
    expect(onB).toEqual([EVERYTHING]);

    await until(() => isUp(b));
    expect(b.epoch).toBe(upEpoch + 2);
    expect(onB).toEqual([EVERYTHING, EVERYTHING]);
  });

  it('rejects a publish Redis cannot take with STORE_UNAVAILABLE, and sends it once Redis is back', async () => {
    const redis = await startRedis();
    servers.push(redis);
    await redis.kill();
    const url = redis.url;
    const a = await bus(await client(url), { channel: 'svc-test:bus:retry' });
    const onA = heard(a);
    expect(isUp(a)).toBe(false);

    const error = await rejectionOf(a.publish('user:7'));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.status).toBe(503);
    expect(error.details).toEqual({ store: 'redis' });
    // This process's caches dropped the entry all the same.
    expect(onA).toEqual(['user:7']);

    await redis.start();
    const b = await bus(await client(url), { channel: 'svc-test:bus:retry' });
    const onB = heard(b);
    await until(() => onB.includes('user:7'), 2000);
    await until(() => isUp(a));
  });

  it('stops retrying at close()', async () => {
    const redis = await client(`redis://127.0.0.1:${await freePort()}`);
    const publish = vi.spyOn(redis, 'publish');
    const a = await openRedisBus(redis, { channel: uniqueChannel() });
    await rejectionOf(a.publish('user:7'));
    expect(publish).toHaveBeenCalledTimes(1);
    await a.close();
    await a.close();
    // The first retry was due 100 ms after the failure.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('leaves the shared client open at close()', async () => {
    const redis = await client();
    const a = await openRedisBus(redis, { channel: uniqueChannel() });
    await a.close();
    expect(await redis.ping()).toBe('PONG');
  });
});
