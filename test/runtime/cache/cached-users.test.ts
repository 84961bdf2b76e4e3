// CachedUserSource: the user source contract still holds through the cache; a cached user costs no read of
// the source; an update on one process is seen at once on another; the optional methods stay optional.
import { describe, expect, it } from 'vitest';
import { MemoryUserSource } from '../../../runtime/auth/stores/memory-users.js';
import type { UserSource } from '../../../runtime/auth/stores/users.js';
import { CachedUserSource } from '../../../runtime/stores/cache/cached-users.js';
import { localBus } from '../../../runtime/stores/cache/local-bus.js';
import { userSourceContract } from '../contracts/user-source.js';
import { counted, linkedBuses, unreachableBus } from './fake-buses.js';

userSourceContract(
  'CachedUserSource over MemoryUserSource',
  () => new CachedUserSource(new MemoryUserSource(), localBus()),
  (users) => new CachedUserSource(new MemoryUserSource({ users }), localBus()),
);

function twoProcesses() {
  const inner = counted(new MemoryUserSource());
  const [busA, busB] = linkedBuses();
  return { inner, a: new CachedUserSource(inner.store, busA), b: new CachedUserSource(inner.store, busB) };
}

describe('CachedUserSource', () => {
  it('answers a cached user without reading the source, as a copy', async () => {
    const { inner, a } = twoProcesses();
    const user = await a.create({ email: 'pat@example.com', passwordHash: 'h' });
    const first = await a.findById(user.id);
    first!.email = 'tampered@example.com';
    expect(await a.findById(user.id)).toEqual(user);
    expect(inner.calls.findById).toBe(1);
  });

  it('does not cache an unknown id', async () => {
    const { inner, a } = twoProcesses();
    expect(await a.findById('nobody')).toBeNull();
    expect(await a.findById('nobody')).toBeNull();
    expect(inner.calls.findById).toBe(2);
  });

  it('serves the update made on another process at once', async () => {
    const { a, b } = twoProcesses();
    const user = await a.create({ email: 'pat@example.com', passwordHash: 'h' });
    expect((await b.findById(user.id))?.passwordHash).toBe('h');
    await a.update!(user.id, { passwordHash: null, emailVerified: true });
    const seen = await b.findById(user.id);
    expect(seen?.passwordHash).toBeUndefined();
    expect(seen?.emailVerified).toBe(true);
  });

  it('fails an update whose invalidation cannot be sent (503)', async () => {
    const inner = new MemoryUserSource();
    const source = new CachedUserSource(inner, unreachableBus());
    const user = await source.create({ email: 'pat@example.com' });
    await expect(source.update!(user.id, { emailVerified: true })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });

  it('has update and findByIds only when the source it wraps has them', async () => {
    const full = new CachedUserSource(new MemoryUserSource(), localBus());
    expect(typeof full.update).toBe('function');
    expect(await full.findByIds!([])).toEqual([]);
    const inner = new MemoryUserSource();
    const minimal: UserSource = {
      findByEmail: (email) => inner.findByEmail(email),
      findById: (id) => inner.findById(id),
      create: (user) => inner.create(user),
    };
    const cached = new CachedUserSource(minimal, localBus());
    expect('update' in cached).toBe(false);
    expect('findByIds' in cached).toBe(false);
  });
});
