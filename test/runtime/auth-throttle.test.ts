// The login throttle (docs/auth.md, "Login throttle"): attempts reserved per email and per IP before any password is checked, AUTH_LOCKED on the failure
// that reaches a limit and while locked, a success clearing the account's counter and giving its IP place
// back; the in-memory store's bounds and eviction order.
import { describe, expect, it } from 'vitest';
import {
  LoginThrottle,
  MemoryThrottleStore,
  isLocked,
  type HttpError,
  type LoginAttempt,
  type LoginReservation,
} from 'svckit';
import { throttleStoreContract } from './contracts/throttle-store.js';

throttleStoreContract('MemoryThrottleStore', () => new MemoryThrottleStore());

const MINUTE = 60_000;

function throttleAt(start = 1_700_000_000_000, options: ConstructorParameters<typeof LoginThrottle>[0] = {}) {
  let now = start;
  const throttle = new LoginThrottle({ clock: () => now, ...options });
  return { throttle, advance: (ms: number) => void (now += ms) };
}

async function lockedError(action: Promise<unknown>): Promise<HttpError> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'expected AUTH_LOCKED').toBeDefined();
  expect((error as HttpError).code).toBe('AUTH_LOCKED');
  expect((error as HttpError).status).toBe(429);
  return error as HttpError;
}

/** A whole failed sign-in: reserve, then record the failure (which may answer AUTH_LOCKED). */
async function fail(throttle: LoginThrottle, attempt: LoginAttempt): Promise<void> {
  await throttle.recordFailure(await throttle.reserve(attempt));
}

async function succeed(throttle: LoginThrottle, attempt: LoginAttempt): Promise<void> {
  await throttle.recordSuccess(await throttle.reserve(attempt));
}

/** Runs every action at once; the settled outcomes: 'ok' or the error code. */
async function outcomes(actions: Promise<unknown>[]): Promise<string[]> {
  const settled = await Promise.allSettled(actions);
  return settled.map((result) =>
    result.status === 'fulfilled' ? 'ok' : String((result.reason as HttpError).code),
  );
}

describe('LoginThrottle', () => {
  const alice = { email: 'alice@example.com', ip: '203.0.113.7' };

  it('answers AUTH_LOCKED on the 5th failure within 15 minutes, and to every attempt while locked', async () => {
    const { throttle, advance } = throttleAt();
    for (let n = 1; n <= 4; n++) {
      await fail(throttle, alice);
      advance(MINUTE);
    }
    const locked = await lockedError(fail(throttle, alice));
    expect(locked.details).toEqual({ retryAfterSeconds: 900 });
    // Case and surrounding spaces do not make another account; another address does not help either.
    const refused = await lockedError(throttle.reserve({ email: ' ALICE@example.com', ip: '198.51.100.1' }));
    expect(refused.details).toEqual({ retryAfterSeconds: 900 });
    advance(15 * MINUTE - 1);
    await lockedError(throttle.reserve(alice));
    advance(1);
    await throttle.reserve(alice);
  });

  it('forgets failures older than the window', async () => {
    const { throttle, advance } = throttleAt();
    for (let n = 0; n < 4; n++) await fail(throttle, alice);
    advance(15 * MINUTE);
    for (let n = 0; n < 4; n++) await fail(throttle, alice);
    await throttle.reserve(alice);
  });

  it('grants 5 of 50 attempts made at once; of those, only the one that reached the limit answers AUTH_LOCKED', async () => {
    const { throttle } = throttleAt();
    const reserved = await Promise.allSettled(Array.from({ length: 50 }, () => throttle.reserve(alice)));
    const granted = reserved.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(granted).toHaveLength(5);
    for (const result of reserved) {
      if (result.status === 'rejected') expect((result.reason as HttpError).code).toBe('AUTH_LOCKED');
    }
    const failures = await outcomes(granted.map((reservation) => throttle.recordFailure(reservation)));
    expect(failures.sort()).toEqual(['AUTH_LOCKED', 'ok', 'ok', 'ok', 'ok']);
    // The right password, right after: still locked.
    await lockedError(throttle.reserve(alice));
  });

  it('clears the account counter on success but keeps the failures the address counted', async () => {
    const { throttle } = throttleAt(undefined, { maxAttemptsPerIp: 6 });
    for (let n = 0; n < 4; n++) await fail(throttle, alice);
    await succeed(throttle, alice);
    // The account starts over (4 more failures pass), the address does not: its 6th failure locks it.
    await fail(throttle, alice);
    await lockedError(fail(throttle, alice));
    await lockedError(throttle.reserve({ email: 'bob@example.com', ip: alice.ip }));
    await throttle.reserve({ email: 'bob@example.com', ip: '198.51.100.1' });
  });

  it('a success between the failures of a burst keeps the failure that reached the limit from answering AUTH_LOCKED', async () => {
    const { throttle } = throttleAt(undefined, { maxAttempts: 2 });
    const first = await throttle.reserve(alice);
    const second = await throttle.reserve(alice); // reaches 2: the account is locked while both are checked
    await lockedError(throttle.reserve(alice));
    await throttle.recordSuccess(first); // the right password: the account's counter is cleared
    await throttle.recordFailure(second); // no longer locked: the caller answers its own error
    await throttle.reserve(alice);
  });

  it('successes from an address do not spend its budget, and never give back a failure', async () => {
    const { throttle } = throttleAt(undefined, { maxAttemptsPerIp: 3 });
    const office = (n: number) => ({ email: `user${n}@example.com`, ip: alice.ip });
    for (let n = 0; n < 20; n++) await succeed(throttle, office(n));
    // Successes made at once, filling the address's last places, give them back too.
    await Promise.all(Array.from({ length: 3 }, (_, n) => succeed(throttle, office(100 + n))));
    await fail(throttle, alice);
    await succeed(throttle, office(200));
    await fail(throttle, alice);
    await succeed(throttle, office(201));
    // An attacker who also owns an account at that address: its sign-ins leave the failures counted.
    await lockedError(fail(throttle, { email: 'carol@example.com', ip: alice.ip }));
    await lockedError(throttle.reserve(office(202)));
  });

  it('an attempt refused by one counter gives its place in the other back', async () => {
    const { throttle } = throttleAt(undefined, { maxAttempts: 1, maxAttemptsPerIp: 3 });
    await lockedError(fail(throttle, alice)); // maxAttempts 1: alice is locked at once
    for (let n = 0; n < 10; n++) await lockedError(throttle.reserve(alice));
    // The address counted one failure, not eleven: two more attempts pass before it locks.
    await throttle.reserve({ email: 'bob@example.com', ip: alice.ip });
    await throttle.reserve({ email: 'carol@example.com', ip: alice.ip });
    await lockedError(throttle.reserve({ email: 'dave@example.com', ip: alice.ip }));
    // And an address that refuses leaves the account untouched.
    const { throttle: other } = throttleAt(undefined, { maxAttempts: 2, maxAttemptsPerIp: 1 });
    await lockedError(fail(other, { email: 'dave@example.com', ip: alice.ip }));
    for (let n = 0; n < 5; n++) await lockedError(other.reserve(alice));
    // Both of alice's places are still free.
    await other.reserve({ ...alice, ip: '198.51.100.1' });
    await other.reserve({ ...alice, ip: '198.51.100.2' });
    await lockedError(other.reserve({ ...alice, ip: '198.51.100.3' }));
  });

  it('release() gives both places back: an attempt that checked no password costs nothing', async () => {
    const { throttle } = throttleAt(undefined, { maxAttempts: 2, maxAttemptsPerIp: 2 });
    for (let n = 0; n < 10; n++) await throttle.release(await throttle.reserve(alice));
    await fail(throttle, alice);
    await lockedError(fail(throttle, alice));
  });

  it('locks an address at 50 failures across accounts by default, not before', async () => {
    const { throttle } = throttleAt();
    expect(throttle.maxAttemptsPerIp).toBe(50);
    const from = (n: number) => ({ email: `spray${n}@example.com`, ip: alice.ip });
    for (let n = 1; n <= 49; n++) await fail(throttle, from(n));
    await lockedError(fail(throttle, from(50)));
    await lockedError(throttle.reserve(from(51)));
    await throttle.reserve({ email: 'spray51@example.com', ip: '198.51.100.1' });
  });

  it('locks an address that sprays many accounts, and shares one counter among unknown addresses', async () => {
    const { throttle } = throttleAt(undefined, { maxAttemptsPerIp: 3 });
    await fail(throttle, { email: 'a@example.com', ip: undefined });
    await fail(throttle, { email: 'b@example.com', ip: '' });
    await lockedError(fail(throttle, { email: 'c@example.com', ip: undefined }));
    await lockedError(throttle.reserve({ email: 'd@example.com', ip: undefined }));
  });

  it('keeps throttles with different namespaces apart in one store', async () => {
    const store = new MemoryThrottleStore();
    const login = new LoginThrottle({ store, maxAttempts: 2 });
    const mfa = new LoginThrottle({ store, maxAttempts: 2, namespace: 'mfa' });
    await fail(login, alice);
    await fail(mfa, alice);
    const reservation: LoginReservation = await login.reserve(alice);
    await lockedError(login.recordFailure(reservation));
    await mfa.reserve(alice);
  });

  it('refuses bad and unknown options with a TypeError', () => {
    for (const options of [
      { maxAttempts: 0 },
      { windowMs: 1.5 },
      { maxAttemptsPerIp: -1 },
      { namespace: '' },
      { maxAttempt: 5 },
    ]) {
      expect(() => new LoginThrottle(options as object), JSON.stringify(options)).toThrow(TypeError);
    }
    expect(() => new LoginThrottle({ maxAtempts: 3 } as object)).toThrow(/did you mean "maxAttempts"/);
    expect(() => new MemoryThrottleStore({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => new MemoryThrottleStore({ size: 10 } as object)).toThrow(/unknown option "size"/);
  });
});

describe('MemoryThrottleStore bounds', () => {
  const reserve = (store: MemoryThrottleStore, key: string, now: number, maxAttempts = 2) =>
    store.reserve(key, { windowMs: MINUTE, maxAttempts, now });

  it('holds 100000 keys by default and evicts only when a new key would exceed that', async () => {
    const store = new MemoryThrottleStore();
    expect(store.maxEntries).toBe(100_000);
    for (let n = 0; n < 100_000; n++) await reserve(store, `k${n}`, n % 1000);
    expect(store.size).toBe(100_000);
    expect(await store.get('k0', 1000)).toBeDefined();
    await reserve(store, 'one-more', 1000);
    expect(store.size).toBe(100_000);
    expect(await store.get('k0', 1000)).toBeUndefined();
    expect(await store.get('k1', 1000)).toBeDefined();
  });

  it('when full, sweeps expired entries first', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 3 });
    await reserve(store, 'old', 0);
    await reserve(store, 'a', MINUTE / 2);
    await reserve(store, 'b', MINUTE / 2);
    await reserve(store, 'new', MINUTE + 1);
    expect(store.size).toBe(3);
    expect(await store.get('old', MINUTE + 1)).toBeUndefined();
    expect(await store.get('a', MINUTE + 1)).toBeDefined();
  });

  it('then evicts the oldest unlocked entry, never a locked one while an unlocked one exists', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 3 });
    await reserve(store, 'locked', 0);
    await reserve(store, 'locked', 0); // reaches maxAttempts 2: locked
    await reserve(store, 'unlocked-old', 1);
    await reserve(store, 'unlocked-new', 2);
    await reserve(store, 'incoming', 3);
    expect(isLocked(await store.get('locked', 3), 3)).toBe(true);
    expect(await store.get('unlocked-old', 3)).toBeUndefined();
    expect(await store.get('unlocked-new', 3)).toBeDefined();
    expect(await store.get('incoming', 3)).toBeDefined();
  });

  it('drops the oldest locked entry only when every entry is locked', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 2 });
    for (const key of ['first', 'second']) {
      await reserve(store, key, 0);
      await reserve(store, key, 0);
    }
    await reserve(store, 'third', 1);
    expect(await store.get('first', 1)).toBeUndefined();
    expect(isLocked(await store.get('second', 1), 1)).toBe(true);
    expect(store.size).toBe(2);
  });
});
