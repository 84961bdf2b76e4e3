// The headers of a counted request, and of its 429 RATE_LIMITED. X-RateLimit-Reset and Retry-After are
// both seconds until the window ends, rounded up, so a client that waits that long finds a fresh window.
import type { SvcReply } from '../../http/types.js';
import type { RateLimitHit } from './store.js';

export const RATE_LIMIT_HEADERS: readonly string[] = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
];

export function remainingOf(limit: number, hit: RateLimitHit): number {
  return Math.max(0, limit - hit.count);
}

export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(0, Math.ceil((resetAt - now) / 1000));
}

export function setRateLimitHeaders(reply: SvcReply, limit: number, hit: RateLimitHit, now: number): void {
  reply.header('x-ratelimit-limit', String(limit));
  reply.header('x-ratelimit-remaining', String(remainingOf(limit, hit)));
  reply.header('x-ratelimit-reset', String(secondsUntil(hit.resetAt, now)));
}

export function setRetryAfter(reply: SvcReply, hit: RateLimitHit, now: number): void {
  reply.header('retry-after', String(secondsUntil(hit.resetAt, now)));
}
