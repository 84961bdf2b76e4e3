// The invalidation bus of processes sharing PostgreSQL: LISTEN/NOTIFY on one channel, over one connection of
// the bus's own (a pooled connection would lose its LISTEN when returned). It sends on that same connection,
// and reconnects forever when the server drops it. Liveness and epochs: bus-health.ts. node-postgres is
// imported lazily, like the stores' pool.
import type { Client } from 'pg';
import { invalidOption } from '../../config/option-errors.js';
import { reconnectDelay } from '../redis/client.js';
import { classifyPgError } from '../sql/unavailable.js';
import { storeUnavailable } from '../unavailable.js';
import type { InvalidationBus } from './bus.js';
import { BusHealth, busSettings, type BusOptions } from './bus-health.js';

export const DEFAULT_PG_BUS_CHANNEL = 'svc_invalidate';
/** A connection attempt without an answer after this many ms counts as failed (and is retried). */
const CONNECT_TIMEOUT_MS = 2000;
/** A NOTIFY without an answer after this many ms fails (STORE_UNAVAILABLE, retried in the background). */
const QUERY_TIMEOUT_MS = 2000;
/** An unquoted identifier: LISTEN takes no parameter, so the channel is part of the SQL text. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export type PgBusOptions = BusOptions;

/**
 * A bus on the PostgreSQL server of `url`. Resolves once the first connection attempt ended, listening or not:
 * PostgreSQL may be down at start (isUp false until it is back).
 */
export async function openPgBus(url: string, options: PgBusOptions = {}): Promise<InvalidationBus> {
  const owner = 'openPgBus()';
  const settings = busSettings(options, owner, DEFAULT_PG_BUS_CHANNEL);
  const { channel } = settings;
  if (!CHANNEL.test(channel)) {
    throw invalidOption(owner, 'channel', 'a lower-case identifier of at most 63 characters (a-z, 0-9, _)');
  }
  const pg = (await import('pg')).default;

  /** The connection being opened or open. */
  let current: Client | undefined;
  /** `current`, once it listens: messages are sent on it. */
  let listening: Client | undefined;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const health = new BusHealth(async (message) => {
    const connection = listening;
    if (connection === undefined) {
      throw storeUnavailable('database', 'the invalidation bus is not connected', undefined);
    }
    try {
      await connection.query('SELECT pg_notify($1, $2)', [channel, message]);
    } catch (error) {
      throw classifyPgError(error);
    }
  }, settings);

  const scheduleReconnect = (): void => {
    if (closed) return;
    attempt++;
    reconnectTimer = setTimeout(() => void connect(), reconnectDelay(attempt));
    // Reconnecting never keeps the process alive on its own.
    reconnectTimer.unref();
  };

  const connect = async (): Promise<void> => {
    reconnectTimer = undefined;
    if (closed) return;
    const connection = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
    });
    current = connection;
    let gone = false;
    const lost = (): void => {
      if (gone) return;
      gone = true;
      if (listening === connection) listening = undefined;
      if (current === connection) current = undefined;
      health.listeningStopped();
      connection.end().catch(() => undefined);
      scheduleReconnect();
    };
    // Without a listener, an 'error' event would crash the process; the outage shows as isUp false.
    connection.on('error', lost);
    connection.on('end', lost);
    connection.on('notification', (notification) => {
      if (notification.channel === channel && notification.payload !== undefined) {
        health.received(notification.payload);
      }
    });
    try {
      await connection.connect();
      await connection.query(`LISTEN ${channel}`);
    } catch {
      lost();
      return;
    }
    if (gone || closed) return;
    attempt = 0;
    listening = connection;
    health.listeningStarted();
  };

  await connect();
  health.start();
  return health.asBus(async () => {
    closed = true;
    clearTimeout(reconnectTimer);
    const connection = current;
    current = undefined;
    listening = undefined;
    await connection?.end().catch(() => undefined);
  });
}
