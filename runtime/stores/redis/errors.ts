// How a Redis failure reaches a caller. A backend that cannot answer (down, unreachable, timed out, loading,
// failing over) makes every store call refuse with STORE_UNAVAILABLE (503) rather than serve a request
// without the check or the write it needed. Any other Redis error (a script or argument mistake) is a bug
// and passes through unchanged.
import { storeUnavailable } from '../unavailable.js';

/** Error replies that mean "not now" rather than "wrong": Redis is starting, busy, read-only or refusing us. */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|OOM|TRYAGAIN|CLUSTERDOWN|NOAUTH|WRONGPASS)\b/;

/** Whether `error`, thrown by an ioredis command, means Redis could not serve it. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // ReplyError: Redis answered; only its availability replies count. Everything else is the connection
  // (refused, closed, "Stream isn't writeable", "Command timed out", MaxRetriesPerRequestError).
  if (error.name === 'ReplyError') return UNAVAILABLE_REPLY.test(error.message);
  return true;
}

/** STORE_UNAVAILABLE for an unavailability failure, else the error itself. */
export function redisFailure(error: unknown): unknown {
  return isRedisUnavailable(error) ? storeUnavailable('redis', (error as Error).message, error) : error;
}

/** Runs one Redis round trip, mapping its failure through redisFailure. */
export async function redisCall<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    throw redisFailure(error);
  }
}
