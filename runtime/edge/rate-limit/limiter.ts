// The two halves of rate limiting. The global bucket is counted in the security request hook, before routing,
// so 404s and errors are limited and carry the headers too. A route's own bucket is counted by a guard, after
// the enrichers, because its key may be the user or tenant they set. Guards get no reply, so the hook leaves
// the reply in a per-request slot that the guard writes the route bucket's headers through. A request that
// carries several messages (a JSON-RPC batch on the MCP endpoint) pays for each one beyond the first through
// the guard's countMessage, so batching buys no more than sending the messages one by one. On a store that
// leases, a bucket that is not `exact` is counted from hits this process leased (leased-buckets.ts): a round
// trip per lease instead of per request; an exact bucket is hit in the store on every request.
import { errors } from '../../../generated/modules/errors.js';
import type { Guard, PipelineInput, RequestHookInput, SvcReply, SvcRequest } from '../../http/types.js';
import { remainingOf, setRateLimitHeaders, setRetryAfter } from './headers.js';
import { globalKey, routeKey } from './keys.js';
import { LeasedBuckets, type LeasedBucketsOptions } from './leased-buckets.js';
import { routeRateLimit } from './route-limit.js';
import type { RateLimitHit, RateLimitStore } from './store.js';

export interface GlobalRateLimit {
  limit: number;
  windowMs: number;
  /** Hit the store on every request even when it leases. Default false. */
  exact?: boolean;
}

export interface RateLimiterOptions {
  /** The local buckets of a leasing store: how many are kept, and their clock (tests pass a fake one). */
  leased?: LeasedBucketsOptions;
}

export interface RateLimiter {
  /** The request-hook step: counts the global bucket and opens the slot of a route with its own limit. */
  onRequest(input: RequestHookInput): void | Promise<void>;
  /** Counts the route's own bucket (`meta.rateLimit`). */
  guard: RateLimitGuard;
}

const RATE_LIMIT_GUARD_NAME = 'svc:rate-limit';

/** The rate-limit guard as registered in `http:guards`, which other plugins find there (isRateLimitGuard). */
export interface RateLimitGuard extends Guard {
  /**
   * Counts one more message the request carries, as if it had come alone: the global bucket, then the
   * route's own. Throws RATE_LIMITED when either is used up; `reply` shows the bucket closest to refusing.
   */
  countMessage(input: PipelineInput, reply: SvcReply): Promise<void>;
}

export function isRateLimitGuard(guard: Guard): guard is RateLimitGuard {
  return (
    guard.name === RATE_LIMIT_GUARD_NAME &&
    typeof (guard as Partial<RateLimitGuard>).countMessage === 'function'
  );
}

interface Slot {
  reply: SvcReply;
  /** Remaining hits the headers show now; the headers always show the bucket closest to refusing. */
  shownRemaining: number;
}

/**
 * Applies `then` to a hit that may still be on its way, staying synchronous when it is not. Any thenable is
 * awaited (a custom store may return another promise library's): read as a hit, it would count nothing.
 */
function afterHit(
  counted: RateLimitHit | PromiseLike<RateLimitHit>,
  then: (hit: RateLimitHit) => void,
): void | Promise<void> {
  if (typeof (counted as Partial<PromiseLike<RateLimitHit>>).then === 'function') {
    return Promise.resolve(counted).then(then);
  }
  return then(counted as RateLimitHit);
}

export function createRateLimiter(
  global: GlobalRateLimit | undefined,
  store: RateLimitStore,
  options: RateLimiterOptions = {},
): RateLimiter {
  const slots = new WeakMap<SvcRequest, Slot>();
  const now = options.leased?.now ?? Date.now;
  const leased =
    store.lease === undefined
      ? undefined
      : new LeasedBuckets(store.lease.bind(store), { ...options.leased, now });

  function count(
    key: string,
    windowMs: number,
    limit: number,
    exact: boolean,
  ): RateLimitHit | PromiseLike<RateLimitHit> {
    if (exact || leased === undefined) return store.hit(key, windowMs, limit);
    return leased.take(key, windowMs, limit);
  }

  function countGlobal(request: SvcRequest, reply: SvcReply, limit: GlobalRateLimit): void | Promise<void> {
    const counted = count(globalKey(request), limit.windowMs, limit.limit, limit.exact === true);
    return afterHit(counted, (hit) => {
      const at = now();
      setRateLimitHeaders(reply, limit.limit, hit, at);
      if (hit.count > limit.limit) {
        setRetryAfter(reply, hit, at);
        throw errors.RATE_LIMITED();
      }
      const slot = slots.get(request);
      if (slot !== undefined) slot.shownRemaining = remainingOf(limit.limit, hit);
    });
  }

  function onRequest({ request, reply, route }: RequestHookInput): void | Promise<void> {
    // Probes and documents are never limited: a kubelet polling /livez must not get a 429 and restart the pod.
    if (route?.edge === true) return;
    if (route !== undefined && routeRateLimit(route) !== undefined) {
      slots.set(request, { reply, shownRemaining: Number.POSITIVE_INFINITY });
    }
    if (global !== undefined) return countGlobal(request, reply, global);
  }

  const guard: RateLimitGuard = {
    name: RATE_LIMIT_GUARD_NAME,
    appliesTo: (route) => routeRateLimit(route) !== undefined,
    async countMessage(input, reply) {
      if (global !== undefined) await countGlobal(input.request, reply, global);
      await guard.check(input);
    },
    check(input) {
      const limit = routeRateLimit(input.route);
      if (limit === undefined) return;
      const counted = count(routeKey(limit, input), limit.windowMs, limit.limit, limit.exact);
      return afterHit(counted, (hit) => {
        const at = now();
        // No slot when the guard runs outside an HTTP request (a tool call): the limit still applies.
        const slot = slots.get(input.request);
        const refused = hit.count > limit.limit;
        if (slot !== undefined && (refused || remainingOf(limit.limit, hit) < slot.shownRemaining)) {
          setRateLimitHeaders(slot.reply, limit.limit, hit, at);
          slot.shownRemaining = remainingOf(limit.limit, hit);
          if (refused) setRetryAfter(slot.reply, hit, at);
        }
        if (refused) throw errors.RATE_LIMITED();
      });
    },
  };

  return { onRequest, guard };
}
