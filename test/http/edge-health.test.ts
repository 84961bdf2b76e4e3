// healthPlugin on every adapter: /livez touches nothing, /readyz runs every check,
// and edge routes run no enrichers or guards.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { healthPlugin, readiness, route, type HealthCheck } from 'svckit';
import { adapters, call, denyAllPlugin, withServer } from './harness.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A check that passes once `count` checks have started: it never passes when the checks run one by one. */
function gatheringChecks(count: number): Record<string, HealthCheck> {
  let started = 0;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const check = async () => {
    if (++started === count) open();
    await gate;
    return { ok: true };
  };
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`c${index}`, check]));
}

describe.each(adapters)('healthPlugin on $name', (adapter) => {
  it('answers /livez without running any check, enricher or guard', async () => {
    let checked = 0;
    const counter = { enriched: 0 };
    const plugins = [
      denyAllPlugin(counter),
      healthPlugin({ checks: { db: () => ({ ok: checked++ > 1e9 }) } }),
    ];
    const routes = [route({ method: 'GET', url: '/private', handler: () => 'secret' })];
    await withServer(adapter, { routes, plugins }, async (url) => {
      const live = await call(`${url}/livez`);
      expect(live.status).toBe(200);
      expect(live.json).toEqual({ status: 'ok' });
      expect(live.headers.get('cache-control')).toBe('no-store');
      expect(live.headers.get('x-request-id')).toBeTruthy();
      expect(checked).toBe(0);
      expect(counter.enriched).toBe(0);
      // The same app's own routes stay guarded.
      expect((await call(`${url}/private`)).status).toBe(401);
      expect(counter.enriched).toBe(1);
    });
  });

  it('answers /readyz 200 when every check passes, and 503 unavailable when one fails', async () => {
    const state = { cache: true };
    const checks: Record<string, HealthCheck> = {
      db: async () => {
        await nextTurn();
        return { ok: true };
      },
      cache: () => ({ ok: state.cache, detail: { host: 'redis.internal', password: 'hunter2' } }),
    };
    await withServer(adapter, { routes: [], plugins: [healthPlugin({ checks })] }, async (url) => {
      const ready = await call(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.json).toEqual({ status: 'ok', checks: { db: { ok: true }, cache: { ok: true } } });
      state.cache = false;
      const unready = await call(`${url}/readyz`);
      expect(unready.status).toBe(503);
      expect(unready.json).toEqual({
        status: 'unavailable',
        checks: { db: { ok: true }, cache: { ok: false } },
      });
      // detail is never serialised.
      expect(unready.text).not.toContain('redis.internal');
      expect(unready.text).not.toContain('hunter2');
    });
  });

  it('counts a check that throws, rejects, times out or returns no verdict as failed', async () => {
    const checks: Record<string, HealthCheck> = {
      throws: () => {
        throw new Error('connection refused to 10.0.0.7');
      },
      rejects: () => Promise.reject(new Error('boom')),
      hangs: () => new Promise(() => undefined),
      vague: () => ({ ok: 'yes' }) as never,
      fine: () => ({ ok: true }),
    };
    await withServer(
      adapter,
      // A 1 ms timeout: the other checks settle in microtasks, before any timer can fire.
      { routes: [], plugins: [healthPlugin({ checks, checkTimeoutMs: 1 })] },
      async (url) => {
        const response = await call(`${url}/readyz`);
        expect(response.status).toBe(503);
        expect(response.json).toEqual({
          status: 'unavailable',
          checks: {
            throws: { ok: false },
            rejects: { ok: false },
            hangs: { ok: false },
            vague: { ok: false },
            fine: { ok: true },
          },
        });
        expect(response.text).not.toContain('10.0.0.7');
      },
    );
  });

  it('runs the checks at the same time', async () => {
    // Each check waits for all four to have started; run one by one, the first would time out.
    const checks = gatheringChecks(4);
    await withServer(
      adapter,
      { routes: [], plugins: [healthPlugin({ checks, checkTimeoutMs: 1000 })] },
      async (url) => {
        expect((await call(`${url}/readyz`)).status).toBe(200);
      },
    );
  });

  it('refuses to boot when the application defines /livez itself', async () => {
    const routes = [route({ method: 'GET', url: '/livez', handler: () => 'mine' })];
    await expect(
      withServer(adapter, { routes, plugins: [healthPlugin()] }, async () => undefined),
    ).rejects.toThrow(/livez/);
  });
});

describe('readiness timeouts', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails a check at its timeout and not before, and times every check from the same start', async () => {
    vi.useFakeTimers();
    const after = (ms: number) => () =>
      new Promise<{ ok: boolean }>((resolve) => setTimeout(() => resolve({ ok: true }), ms));
    const report = readiness(
      { quick: after(10), justInTime: after(99), late: after(100), hangs: after(1e9) },
      100,
    );
    let settled = false;
    void report.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await report).toEqual({
      status: 'unavailable',
      checks: { quick: { ok: true }, justInTime: { ok: true }, late: { ok: false }, hangs: { ok: false } },
    });
    // Only the hanging check's own timer is left: no timeout timer outlives its check.
    expect(vi.getTimerCount()).toBe(1);
  });
});

describe('healthPlugin options', () => {
  it('refuses checks that are not functions and a bad timeout', () => {
    expect(() => healthPlugin({ checks: { db: true as never } })).toThrow(/check "db" must be a function/);
    expect(() => healthPlugin({ checks: [] as never })).toThrow(TypeError);
    expect(() => healthPlugin({ checkTimeoutMs: 0 })).toThrow(/checkTimeoutMs/);
  });
});
