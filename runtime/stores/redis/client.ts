// The Redis connection (docs/stores.md), configured to fail fast: a command sent while Redis is down is
// refused at once (STORE_UNAVAILABLE, 503) instead of queueing, and the client keeps reconnecting in the
// background, so the service answers again as soon as Redis is back, without a restart. ioredis is imported
// here only, lazily: an application without Redis never loads it.
import type { Redis } from 'ioredis';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { redisCall } from './errors.js';

export type RedisClient = Redis;

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2000;
export const DEFAULT_REDIS_CONNECT_TIMEOUT_MS = 2000;
/** Longest pause between two reconnection attempts: Redis coming back is noticed within a second. */
export const MAX_REDIS_RECONNECT_DELAY_MS = 1000;

export interface OpenRedisOptions {
  /** A command without a reply after this many ms fails (STORE_UNAVAILABLE). Default 2000. */
  commandTimeoutMs?: number;
  /** A connection attempt without an answer after this many ms is retried. Default 2000. */
  connectTimeoutMs?: number;
  /** Connection errors (each failed attempt while Redis is down). Default: ignored, stores report failures. */
  onError?: (error: Error) => void;
}

/**
 * The keys of OpenRedisOptions; any other is refused. They are svc's own
 * settings, mapped onto ioredis's: raw ioredis options are not accepted here.
 */
const OPEN_REDIS_OPTIONS = optionKeys<OpenRedisOptions>({
  commandTimeoutMs: true,
  connectTimeoutMs: true,
  onError: true,
});

/** Reconnects forever, 100 ms more per attempt, at most MAX_REDIS_RECONNECT_DELAY_MS apart. */
export function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 100, MAX_REDIS_RECONNECT_DELAY_MS);
}

/**
 * A client for `url` (redis:// or rediss://). Resolves once connected, or once the first attempt failed: it
 * never rejects, so the service may start before Redis (its stores answer 503 until Redis is there).
 */
export async function openRedis(url: string, options: OpenRedisOptions = {}): Promise<RedisClient> {
  rejectUnknownOptions(options, OPEN_REDIS_OPTIONS, 'openRedis()');
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A command whose reply was lost has already failed for its caller (timeout, 503): sending it again after
    // a reconnect would apply a write nobody waits for (a reservation held, a token spent).
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
  });
  // Without a listener, an 'error' event would crash the process.
  const onError = options.onError;
  client.on('error', (error: Error) => onError?.(error));
  // A rejected first attempt is no failure: the retry strategy keeps trying.
  await client.connect().catch(() => undefined);
  return client;
}

/** Resolves when Redis answers PING; otherwise rejects with STORE_UNAVAILABLE (for /readyz). */
export async function pingRedis(client: RedisClient): Promise<void> {
  await redisCall(() => client.ping());
}

/** Closes the connection after pending replies, or at once when Redis is not connected. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await client.quit().catch(() => client.disconnect());
}
