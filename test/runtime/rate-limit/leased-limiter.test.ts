// The limiter over a store that leases (docs/http.md, "Rate limits"): store calls per request with leasing,
// in exact mode (global option and `meta.rateLimit.exact`), a used-up bucket refused locally until its window
// ends, one lease in flight per bucket, STORE_UNAVAILABLE when a lease is needed, and the exact auth routes.
// Runs against a real Redis (REDIS_URL) under a key prefix of its own, with a fake clock.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { route, securityPlugin, type Route } from 'svckit';
import { routeDefinitions as authRoutes } from '../../../generated/modules/auth/routes.js';
import { routeDefinitions as tenancyRoutes } from '../../../generated/modules/tenancy/routes.js';
import {
  createRateLimiter,
  LeasedBuckets,
  leaseSize,
  type GlobalRateLimit,
} from '../../../runtime/edge/rate-limit/index.js';
import { routeRateLimit } from '../../../runtime/edge/rate-limit/route-limit.js';
import type { RateLimitHit } from '../../../runtime/edge/rate-limit/store.js';
import type { PipelineInput, RequestHookInput, SvcReply, SvcRequest } from '../../../runtime/http/types.js';
import { fakeClock, type FakeClock } from '../contracts/fake-clock.js';
import { spyStoresOnRedis } from './spy-redis-store.js';

const T0 = 1_700_000_000_000;
const spyStore = spyStoresOnRedis('leased-limiter');

interface Answer {
  admitted: boolean;
  headers: Record<string, string>;
}

function fakeRequest(ip = '198.51.100.1'): {
  request: SvcRequest;
  reply: SvcReply;
  headers: Record<string, string>;
} {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
  } as unknown as SvcReply;
  return { request: { ip, context: {} } as unknown as SvcRequest, reply, headers };
}

async function answer(run: () => void | Promise<void>, headers: Record<string, string>): Promise<Answer> {
  try {
    await run();
    return { admitted: true, headers };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'RATE_LIMITED') return { admitted: false, headers };
    throw error;
  }
}

function setup(global: GlobalRateLimit | undefined, clock: FakeClock = fakeClock(T0)) {
  const store = spyStore(clock.now);
  const limiter = createRateLimiter(global, store, { leased: { now: clock.now } });
  const viaHook = (ip?: string) => {
    const { request, reply, headers } = fakeRequest(ip);
    return answer(() => limiter.onRequest({ request, reply, route: undefined } as RequestHookInput), headers);
  };
  const viaGuard = (limited: Route, ip?: string) => {
    const { request, headers } = fakeRequest(ip);
    const input = { route: limited, request, context: request.context } as PipelineInput;
    return answer(() => limiter.guard.check(input), headers);
  };
  return { store, limiter, clock, viaHook, viaGuard };
}

function limitedRoute(rateLimit: unknown): Route {
  return route({ method: 'POST', url: `/r/${randomUUID()}`, meta: { rateLimit }, handler: () => ({}) });
}

describe('lease size', () => {
  it('is a twentieth of the limit, between 1 and 1000', () => {
    expect([1, 5, 20, 21, 100, 1000, 20_000, 1_000_000].map(leaseSize)).toEqual([
      1, 1, 1, 2, 5, 50, 1000, 1000,
    ]);
  });
});

describe('round trips', () => {
  it('costs one lease per lease size of requests on the global bucket', async () => {
    const { store, viaHook } = setup({ limit: 1000, windowMs: 60_000 });
    for (let i = 0; i < 200; i++) expect((await viaHook()).admitted).toBe(true);
    expect(store.hits).toBe(0);
    expect(store.leases).toEqual([50, 50, 50, 50]);
  });

  it('costs one hit per request with the global `exact` option', async () => {
    const { store, viaHook } = setup({ limit: 1000, windowMs: 60_000, exact: true });
    for (let i = 0; i < 20; i++) await viaHook();
    expect(store.hits).toBe(20);
    expect(store.leases).toEqual([]);
  });

  it('costs one hit per request on a route with `exact: true`, and leases on one without', async () => {
    const { store, viaGuard } = setup(undefined);
    const exact = limitedRoute({ limit: 100, windowMs: 60_000, exact: true });
    for (let i = 0; i < 10; i++) expect((await viaGuard(exact)).admitted).toBe(true);
    expect(store.hits).toBe(10);
    expect(store.leases).toEqual([]);
    const leased = limitedRoute({ limit: 100, windowMs: 60_000 });
    for (let i = 0; i < 10; i++) expect((await viaGuard(leased)).admitted).toBe(true);
    expect(store.hits).toBe(10);
    expect(store.leases).toEqual([5, 5]);
  });

  it('refuses a used-up bucket locally, without a store call, until its window ends', async () => {
    const { store, clock, viaHook } = setup({ limit: 3, windowMs: 10_000 });
    const first = await Promise.all([viaHook(), viaHook(), viaHook()].map((p) => p.then((a) => a.admitted)));
    expect(first).toEqual([true, true, true]);
    const refused = await viaHook();
    expect(refused.admitted).toBe(false);
    expect(refused.headers['retry-after']).toBe('10');
    const callsWhenUsedUp = store.calls;
    clock.advance(9_999);
    for (let i = 0; i < 50; i++) expect((await viaHook()).admitted).toBe(false);
    expect(store.calls).toBe(callsWhenUsedUp);
    clock.advance(1); // the window ended
    expect((await viaHook()).admitted).toBe(true);
    expect(store.calls).toBe(callsWhenUsedUp + 1);
  });

  it('keeps one lease in flight: requests arriving meanwhile wait, then share one more, in arrival order', async () => {
    const { store, viaHook } = setup({ limit: 100, windowMs: 60_000 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => viaHook()));
    // The first request leased 5; the 11 that came during that lease got 4 of them, the 7 left one lease.
    expect(store.leases).toEqual([5, 7]);
    expect(answers.every((a) => a.admitted)).toBe(true);
    // Arrival order: the n-th request sees n hits counted.
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(
      Array.from({ length: 12 }, (_, i) => String(100 - (i + 1))),
    );
  });

  it('leases again when a grant did not cover every waiter, and refuses the rest once used up', async () => {
    const { viaHook } = setup({ limit: 4, windowMs: 60_000 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => viaHook()));
    expect(answers.map((a) => a.admitted)).toEqual([true, true, true, true, false, false]);
  });

  it('keeps tokens to their window: leftovers from an ended window are not spent in the next', async () => {
    const { store, clock, viaHook } = setup({ limit: 100, windowMs: 1000 });
    await viaHook(); // leases 5, spends 1
    clock.advance(1000);
    await viaHook();
    expect(store.leases).toEqual([5, 5]);
  });
});

describe('store failure', () => {
  it('answers STORE_UNAVAILABLE when a lease is needed, and still spends hits already leased', async () => {
    const { store, viaHook } = setup({ limit: 100, windowMs: 60_000 });
    expect((await viaHook()).admitted).toBe(true); // leased 5, 4 left
    store.failing = true;
    for (let i = 0; i < 4; i++) expect((await viaHook()).admitted).toBe(true);
    const failed = await Promise.allSettled([viaHook(), viaHook()]);
    for (const outcome of failed) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        status: 503,
      });
    }
    expect(store.leases).toEqual([5, 5]); // the two waiters shared one failed lease
    store.failing = false;
    expect((await viaHook()).admitted).toBe(true);
  });

  it('answers STORE_UNAVAILABLE on an exact bucket at once', async () => {
    const { store, viaHook } = setup({ limit: 100, windowMs: 60_000, exact: true });
    store.failing = true;
    await expect(viaHook()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});

describe('local buckets', () => {
  it('keeps at most maxEntries buckets, dropping the oldest', async () => {
    const clock = fakeClock(T0);
    const store = spyStore(clock.now);
    const buckets = new LeasedBuckets(store.lease.bind(store), { maxEntries: 2, now: clock.now });
    for (const key of ['a', 'b', 'c']) await buckets.take(key, 60_000, 100);
    expect(buckets.size).toBe(2);
    await buckets.take('b', 60_000, 100); // kept: spends a leased hit
    expect(store.leases).toHaveLength(3);
    await buckets.take('a', 60_000, 100); // dropped: its unspent hits are gone, it leases again
    expect(store.leases).toHaveLength(4);
  });

  it('never drops a bucket whose lease is in flight while another can go', async () => {
    const clock = fakeClock(T0);
    const pending: (() => void)[] = [];
    const asked: string[] = [];
    const lease = (key: string, _windowMs: number, _limit: number, want: number) => {
      asked.push(key);
      const answer = { granted: want, count: want, resetAt: clock.now() + 60_000 };
      // The lease of "a" hangs until released; the others answer at once.
      return key === 'a'
        ? new Promise<typeof answer>((resolve) => pending.push(() => resolve(answer)))
        : Promise.resolve(answer);
    };
    const buckets = new LeasedBuckets(lease, { maxEntries: 2, now: clock.now });
    const waitingOnA = buckets.take('a', 60_000, 100);
    await buckets.take('b', 60_000, 100);
    await buckets.take('c', 60_000, 100); // full: "b" goes, not "a" whose lease is in flight
    pending.shift()!();
    await waitingOnA;
    await buckets.take('a', 60_000, 100); // spends a hit "a" leased: no new lease
    expect(asked).toEqual(['a', 'b', 'c']);
    await buckets.take('b', 60_000, 100);
    expect(asked).toEqual(['a', 'b', 'c', 'b']);
  });

  it('refuses a bad maxEntries and unknown options', () => {
    const lease = () => Promise.resolve({ granted: 1, count: 1, resetAt: T0 });
    expect(() => new LeasedBuckets(lease, { maxEntries: 0 })).toThrow(TypeError);
    expect(() => new LeasedBuckets(lease, { maxEntrys: 5 } as never)).toThrow(/maxEntrys/);
  });
});

describe('stores of other promise libraries', () => {
  it('awaits any thenable a store answers, so a spent bucket is still refused', async () => {
    const spent: RateLimitHit = { count: 6, resetAt: T0 + 1000 };
    const thenable = { then: (resolve: (hit: RateLimitHit) => void) => resolve(spent) };
    const store = { hit: () => thenable as unknown as Promise<RateLimitHit> };
    const limiter = createRateLimiter({ limit: 5, windowMs: 1000 }, store);
    const { request, reply, headers } = fakeRequest();
    const refused = await answer(
      () => limiter.onRequest({ request, reply, route: undefined } as RequestHookInput),
      headers,
    );
    expect(refused.admitted).toBe(false);
  });
});

describe('exact routes and options', () => {
  it('makes every auth route limit exact, and the tenancy member lookup', () => {
    const limited = authRoutes.filter((definition) => definition.meta.rateLimit !== undefined);
    expect(limited.length).toBeGreaterThanOrEqual(15);
    for (const definition of limited) {
      expect(routeRateLimit(definition as Route)?.exact, definition.id).toBe(true);
    }
    const addMember = tenancyRoutes.find((definition) => definition.id === 'addMember');
    expect(routeRateLimit(addMember as Route)?.exact).toBe(true);
  });

  it('ignores a route limit whose `exact` is not a boolean, like any malformed meta.rateLimit', () => {
    expect(routeRateLimit(limitedRoute({ limit: 5, windowMs: 1000, exact: 'yes' }))).toBeUndefined();
    expect(routeRateLimit(limitedRoute({ limit: 5, windowMs: 1000 }))?.exact).toBe(false);
  });

  it('refuses a non-boolean global `exact` and a store whose lease is not a function', () => {
    expect(() => securityPlugin({ rateLimit: { limit: 5, windowMs: 1000, exact: 'yes' as never } })).toThrow(
      /rateLimit\.exact/,
    );
    const store = { hit: () => Promise.resolve({ count: 1, resetAt: 0 }), lease: 5 };
    expect(() => securityPlugin({ rateLimit: { store: store as never } })).toThrow(/rateLimit\.store/);
    expect(() => securityPlugin({ rateLimit: { limit: 5, windowMs: 1000, exact: true } })).not.toThrow();
  });
});
