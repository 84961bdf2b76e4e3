// The login throttle (seed 000 "States and transitions": login throttle rows; "Limits"): per email and per IP,
// AUTH_LOCKED on the failure that reaches the limit and while locked, cleared per account by a success; the
// in-memory store's bounds and eviction order.
import { describe, expect, it } from 'vitest';
import { LoginThrottle, MemoryThrottleStore, isLocked, type HttpError } from 'svckit';
import { throttleStoreContract } from './contracts/throttle-store.js';

throttleStoreContract('MemoryThrottleStore', () => new MemoryThrottleStore());

const MINUTE = 60_000;

function throttleAt(start = 1_700_000_000_000, options: ConstructorParameters<typeof LoginThrottle>[0] = {}) {
  let now = start;
  const throttle = new LoginThrottle({ clock: () => now, ...options });
  return { throttle, advance: (ms: number) => void (now += ms) };
}

async function lockedError(action: Promise<void>): Promise<HttpError> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'expected AUTH_LOCKED').toBeDefined();
  expect((error as HttpError).code).toBe('AUTH_LOCKED');
  expect((error as HttpError).status).toBe(429);
  return error as HttpError;
}

describe('LoginThrottle', () => {
  const alice = { email: 'alice@example.com', ip: '203.0.113.7' };

  it('answers AUTH_LOCKED on the 5th failure within 15 minutes, and to every attempt while locked', async () => {
    const { throttle, advance } = throttleAt();
    for (let n = 1; n <= 4; n++) {
      await throttle.assertOpen(alice);
      await throttle.recordFailure(alice);
      advance(MINUTE);
    }
    const locked = await lockedError(throttle.recordFailure(alice));
    expect(locked.details).toEqual({ retryAfterSeconds: 900 });
    // Case and surrounding spaces do not make another account; another address does not help either.
    await lockedError(throttle.assertOpen({ email: ' ALICE@example.com', ip: '198.51.100.1' }));
    advance(15 * MINUTE - 1);
    await lockedError(throttle.assertOpen(alice));
    advance(1);
    await throttle.assertOpen(alice);
  });

  it('forgets failures older than the window', async () => {
    const { throttle, advance } = throttleAt();
    for (let n = 0; n < 4; n++) await throttle.recordFailure(alice);
    advance(15 * MINUTE);
    for (let n = 0; n < 4; n++) await throttle.recordFailure(alice);
    await throttle.assertOpen(alice);
  });

  it('clears the account counter on success but keeps the address counter', async () => {
    const { throttle } = throttleAt(undefined, { maxAttemptsPerIp: 6 });
    for (let n = 0; n < 4; n++) await throttle.recordFailure(alice);
    await throttle.recordSuccess(alice);
    for (let n = 0; n < 1; n++) await throttle.recordFailure(alice);
    // 6th failure from the address: the address locks although the account counter restarted.
    await lockedError(throttle.recordFailure(alice));
    await lockedError(throttle.assertOpen({ email: 'bob@example.com', ip: alice.ip }));
    await throttle.assertOpen({ email: 'bob@example.com', ip: '198.51.100.1' });
  });

  it('locks an address that sprays many accounts, and shares one counter among unknown addresses', async () => {
    const { throttle } = throttleAt(undefined, { maxAttemptsPerIp: 3 });
    await throttle.recordFailure({ email: 'a@example.com', ip: undefined });
    await throttle.recordFailure({ email: 'b@example.com', ip: '' });
    await lockedError(throttle.recordFailure({ email: 'c@example.com', ip: undefined }));
    await lockedError(throttle.assertOpen({ email: 'd@example.com', ip: undefined }));
  });

  it('keeps throttles with different namespaces apart in one store', async () => {
    const store = new MemoryThrottleStore();
    const login = new LoginThrottle({ store, maxAttempts: 2 });
    const mfa = new LoginThrottle({ store, maxAttempts: 2, namespace: 'mfa' });
    await login.recordFailure(alice);
    await mfa.recordFailure(alice);
    await login.assertOpen(alice);
    await lockedError(login.recordFailure(alice));
    await mfa.assertOpen(alice);
  });

  it('refuses bad options with a TypeError', () => {
    for (const options of [
      { maxAttempts: 0 },
      { windowMs: 1.5 },
      { maxAttemptsPerIp: -1 },
      { namespace: '' },
    ]) {
      expect(() => new LoginThrottle(options), JSON.stringify(options)).toThrow(TypeError);
    }
    expect(() => new MemoryThrottleStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});

describe('MemoryThrottleStore bounds', () => {
  const hit = (store: MemoryThrottleStore, key: string, now: number, maxAttempts = 2) =>
    store.hit(key, { windowMs: MINUTE, maxAttempts, now });

  it('when full, sweeps expired entries first', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 3 });
    await hit(store, 'old', 0);
    await hit(store, 'a', MINUTE / 2);
    await hit(store, 'b', MINUTE / 2);
    await hit(store, 'new', MINUTE + 1);
    expect(store.size).toBe(3);
    expect(await store.get('old', MINUTE + 1)).toBeUndefined();
    expect(await store.get('a', MINUTE + 1)).toBeDefined();
  });

  it('then evicts the oldest unlocked entry, never a locked one while an unlocked one exists', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 3 });
    await hit(store, 'locked', 0);
    await hit(store, 'locked', 0); // reaches maxAttempts 2: locked
    await hit(store, 'unlocked-old', 1);
    await hit(store, 'unlocked-new', 2);
    await hit(store, 'incoming', 3);
    expect(isLocked(await store.get('locked', 3), 3)).toBe(true);
    expect(await store.get('unlocked-old', 3)).toBeUndefined();
    expect(await store.get('unlocked-new', 3)).toBeDefined();
    expect(await store.get('incoming', 3)).toBeDefined();
  });

  it('drops the oldest locked entry only when every entry is locked', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 2 });
    for (const key of ['first', 'second']) {
      await hit(store, key, 0);
      await hit(store, key, 0);
    }
    await hit(store, 'third', 1);
    expect(await store.get('first', 1)).toBeUndefined();
    expect(isLocked(await store.get('second', 1), 1)).toBe(true);
    expect(store.size).toBe(2);
  });
});
