// Leased rate limits over HTTP on every adapter (docs/http.md, "Rate limits"): on a Redis store that leases,
// the X-RateLimit-* headers still go out, a spent bucket still answers 429 with Retry-After, and a lease the
// store cannot give answers 503 STORE_UNAVAILABLE while hits already leased still admit.
import { describe, expect, it } from 'vitest';
import { route, securityPlugin, type Route } from 'svckit';
import { adapters, call, withServer } from '../../http/harness.js';
import { spyStoresOnRedis } from './spy-redis-store.js';

const spyStore = spyStoresOnRedis('leased-http');

const notes: Route = route({ method: 'GET', url: '/notes', handler: () => ({ items: [] }) });

describe.each(adapters)('leased rate limits on $name', (adapter) => {
  it('sends the headers and answers 429 with Retry-After once the leased global bucket is spent', async () => {
    const store = spyStore();
    const plugins = [securityPlugin({ rateLimit: { limit: 3, windowMs: 60_000, store } })];
    await withServer(adapter, { routes: [notes], plugins }, async (url) => {
      for (const remaining of ['2', '1', '0']) {
        const ok = await call(`${url}/notes`);
        expect(ok.status).toBe(200);
        expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
        expect(ok.headers.get('x-ratelimit-remaining')).toBe(remaining);
        expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(59);
      }
      const refused = await call(`${url}/notes`);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests.' } });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(59);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      // Refused here: the lease that granted nothing was the last store call.
      const leases = store.leases.length;
      expect((await call(`${url}/notes`)).status).toBe(429);
      expect(store.leases).toHaveLength(leases);
    });
  });

  it('answers 503 STORE_UNAVAILABLE when a lease is needed, after spending the hits already leased', async () => {
    const store = spyStore();
    // 100 a window leases 5 at a time.
    const plugins = [securityPlugin({ rateLimit: { limit: 100, windowMs: 60_000, store } })];
    await withServer(adapter, { routes: [notes], plugins }, async (url) => {
      expect((await call(`${url}/notes`)).status).toBe(200);
      store.failing = true;
      for (let i = 0; i < 4; i++) expect((await call(`${url}/notes`)).status).toBe(200);
      const failed = await call(`${url}/notes`);
      expect(failed.status).toBe(503);
      expect(failed.json).toMatchObject({ error: { code: 'STORE_UNAVAILABLE' } });
    });
  });
});
