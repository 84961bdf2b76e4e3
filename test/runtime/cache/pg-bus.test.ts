// The PostgreSQL invalidation bus on a real PostgreSQL (DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test), each bus standing for one process, on a channel of its own per test:
// messages reach the other processes, a terminated listener is noticed (down, new epoch, '*') and replaced, a
// publish made meanwhile is refused and sent once it is back, a server that is not there yet is waited for, and
// the channel, part of the SQL text, must be an identifier.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING, type InvalidationBus } from '../../../runtime/stores/cache/bus.js';
import { freePort } from '../../backends.js';
import { openPgBus, type PgBusOptions } from '../../../runtime/stores/cache/pg-bus.js';
import { busDeliveryContract } from './bus-delivery-contract.js';
import { heard, isUp, until } from './bus-watch.js';
import { rejectionOf } from '../contracts/rejection.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * Slow enough that a loaded machine's pauses never make a bus miss a beat, and too slow to explain what a test
 * sees within a fraction of it: a bus comes up, goes down and comes back through events, not through ticks.
 */
const HEARTBEAT_MS = 1000;

const buses: InvalidationBus[] = [];
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
});

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});

afterAll(async () => {
  await admin.end();
});

function uniqueChannel(): string {
  return `svc_test_bus_${randomUUID().replaceAll('-', '')}`;
}

/** DATABASE_URL with an application name, so a test can find the bus's connection in pg_stat_activity. */
function namedUrl(name: string): string {
  const url = new URL(DATABASE_URL);
  url.searchParams.set('application_name', name);
  return url.toString();
}

async function bus(url: string, options: PgBusOptions): Promise<InvalidationBus> {
  const opened = await openPgBus(url, { heartbeatMs: HEARTBEAT_MS, ...options });
  buses.push(opened);
  return opened;
}

describe('openPgBus', () => {
  busDeliveryContract((channel) => bus(DATABASE_URL, { channel }), uniqueChannel);

  it('goes down when its listener is terminated, tells "*", and comes back in a new epoch', async () => {
    const channel = uniqueChannel();
    const name = `svc-test-bus-${randomUUID()}`;
    const a = await bus(DATABASE_URL, { channel });
    const b = await bus(namedUrl(name), { channel });
    await until(() => isUp(a) && isUp(b));
    const onB = heard(b);
    const upEpoch = b.epoch;
    const epochOfA = a.epoch;

    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [name],
    );
    expect(killed.rowCount).toBe(1);

    // Noticed from the closed connection, long before a heartbeat would be missed; back up as soon as it
    // listens again, which is also before the next heartbeat tick.
    await until(() => !isUp(b), HEARTBEAT_MS / 4);
    expect(b.epoch).toBe(upEpoch + 1);
    expect(onB).toEqual([EVERYTHING]);
    // Without its connection B cannot send: refused now, sent once it has reconnected.
    const onA = heard(a);
    const error = await rejectionOf(b.publish('user:during-outage'));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.details).toEqual({ store: 'database' });

    await until(() => isUp(b), HEARTBEAT_MS / 2);
    expect(b.epoch).toBe(upEpoch + 2);
    expect(onB).toEqual([EVERYTHING, 'user:during-outage', EVERYTHING]);
    await until(() => onA.includes('user:during-outage'));
    // Listening again on a new connection: the other process's messages arrive.
    await a.publish('session:abc');
    await until(() => onB.includes('session:abc'));
    expect(a.epoch).toBe(epochOfA);
  });

  it('opens while PostgreSQL is unreachable, down, and refuses a publish with STORE_UNAVAILABLE', async () => {
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/test`;
    const a = await bus(url, { channel: uniqueChannel() });
    const onA = heard(a);
    expect(isUp(a)).toBe(false);
    const error = await rejectionOf(a.publish('user:7'));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.status).toBe(503);
    expect(error.details).toEqual({ store: 'database' });
    // This process's caches dropped the entry all the same.
    expect(onA).toEqual(['user:7']);
  });

  it('refuses a channel that is not a plain identifier: it is part of the LISTEN statement', async () => {
    for (const channel of ['Bad', '1st', 'a-b', 'x; DROP TABLE users', '', 'a'.repeat(64)]) {
      await expect(openPgBus(DATABASE_URL, { channel })).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    }
  });

  it('refuses unknown options and bad numbers', async () => {
    await expect(openPgBus(DATABASE_URL, { retry: 5 } as PgBusOptions)).rejects.toMatchObject({
      code: 'OPTION_UNKNOWN',
    });
    for (const options of [{ heartbeatMs: 0 }, { retryForMs: -1 }, { heartbeatMs: 2.5 }]) {
      await expect(openPgBus(DATABASE_URL, options)).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    }
  });
});
