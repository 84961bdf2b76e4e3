// HotCache (runtime/stores/cache/hot-cache.ts) on a bus and a clock the test controls: when an entry may be
// served (the fallback window always; the longer window only while the bus is up and has been since the read),
// what an invalidation drops, which reads are kept, and how misses share one load.
import { describe, expect, it } from 'vitest';
import { EVERYTHING, type InvalidationBus } from '../../../runtime/stores/cache/bus.js';
import { HotCache, type HotCacheOptions } from '../../../runtime/stores/cache/hot-cache.js';

const T0 = 1_700_000_000_000;
const FALLBACK_MS = 1_000;
const MAX_AGE_MS = 30_000;

/** A bus whose state the test sets; publish reaches the listeners at once, like a working bus. */
class FakeBus implements InvalidationBus {
  epoch = 0;
  up = true;
  private readonly listeners = new Set<(topic: string) => void>();

  isUp(): boolean {
    return this.up;
  }

  publish(topic: string): Promise<void> {
    for (const listener of [...this.listeners]) listener(topic);
    return Promise.resolve();
  }

  subscribe(listener: (topic: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A load the test resolves or rejects when it chooses. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

interface Record {
  id: string;
  userId: string;
  name: string;
}

function setup(options: HotCacheOptions = {}) {
  const bus = new FakeBus();
  const clock = { now: T0 };
  const cache = new HotCache<Record>(bus, 'test cache', {
    maxAgeMs: MAX_AGE_MS,
    fallbackTtlMs: FALLBACK_MS,
    now: () => clock.now,
    ...options,
  });
  let loads = 0;
  /** Reads `record` through the cache, counting the loads, tagged with its id and its user. */
  const read = (record: Record, keep?: (value: Record) => boolean) =>
    cache.through(
      record.id,
      () => {
        loads++;
        return Promise.resolve({ ...record });
      },
      (value) => [`record:${value.id}`, `user:${value.userId}`],
      keep,
    );
  return { bus, clock, cache, read, loads: () => loads };
}

const A: Record = { id: 'a', userId: 'u1', name: 'first' };
const B: Record = { id: 'b', userId: 'u1', name: 'second' };
const C: Record = { id: 'c', userId: 'u2', name: 'third' };

describe('HotCache: when an entry is served', () => {
  it('serves an entry younger than the fallback window whatever the bus says', async () => {
    const { bus, clock, cache, read } = setup();
    await read(A);
    bus.up = false;
    bus.epoch = 7;
    clock.now = T0 + FALLBACK_MS - 1;
    expect(cache.get('a')).toEqual(A);
    clock.now = T0 + FALLBACK_MS;
    expect(cache.get('a')).toBeUndefined();
  });

  it('serves an entry up to maxAge while the bus is up and in the epoch of the read', async () => {
    const { clock, cache, read } = setup();
    await read(A);
    clock.now = T0 + MAX_AGE_MS - 1;
    expect(cache.get('a')).toEqual(A);
    clock.now = T0 + MAX_AGE_MS;
    expect(cache.get('a')).toBeUndefined();
  });

  it('serves an entry past the fallback window only while the bus is up', async () => {
    const { bus, clock, cache, read } = setup();
    await read(A);
    clock.now = T0 + FALLBACK_MS + 1;
    bus.up = false;
    expect(cache.get('a')).toBeUndefined();
    // Dropped, not just hidden: the bus coming back does not bring it back.
    bus.up = true;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('trusts an entry read before an epoch change only for the fallback window', async () => {
    const { bus, clock, cache, read, loads } = setup();
    await read(A);
    // Down and back up meanwhile: invalidations may have been missed.
    bus.epoch = 1;
    clock.now = T0 + FALLBACK_MS - 1;
    expect(cache.get('a')).toEqual(A);
    clock.now = T0 + FALLBACK_MS;
    expect(cache.get('a')).toBeUndefined();

    // Read again under the new epoch, it is trusted for maxAge again.
    const readAgainAt = clock.now;
    await read(A);
    expect(loads()).toBe(2);
    clock.now = readAgainAt + MAX_AGE_MS - 1;
    expect(cache.get('a')).toEqual(A);
  });

  it('counts the age from when the read started, not when it ended', async () => {
    const { clock, cache } = setup();
    const load = deferred<Record>();
    const reading = cache.through(
      'a',
      () => load.promise,
      () => [],
    );
    clock.now = T0 + FALLBACK_MS;
    load.resolve(A);
    await reading;
    clock.now = T0 + MAX_AGE_MS;
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('HotCache: invalidation', () => {
  it('drops every entry tagged with a published topic, and only those', async () => {
    const { bus, cache, read } = setup();
    await Promise.all([read(A), read(B), read(C)]);
    await bus.publish('user:u1');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toEqual(C);
    expect(cache.size).toBe(1);
  });

  it("drops everything on '*'", async () => {
    const { bus, cache, read } = setup();
    await Promise.all([read(A), read(B), read(C)]);
    await bus.publish(EVERYTHING);
    expect(cache.size).toBe(0);
    expect(cache.get('c')).toBeUndefined();
  });

  it('answers a read that overlapped an invalidation but does not keep it', async () => {
    const { bus, cache } = setup();
    const load = deferred<Record>();
    const reading = cache.through(
      'a',
      () => load.promise,
      (value) => [`user:${value.userId}`],
    );
    // The write lands and is published while the (now stale) row is on its way.
    await bus.publish('user:u1');
    load.resolve(A);
    expect(await reading).toEqual(A);
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps a read that overlapped only invalidations of other topics', async () => {
    const { bus, cache } = setup();
    const load = deferred<Record>();
    const reading = cache.through(
      'a',
      () => load.promise,
      (value) => [`user:${value.userId}`],
    );
    await bus.publish('user:someone-else');
    await bus.publish('session:another');
    load.resolve(A);
    expect(await reading).toEqual(A);
    expect(cache.get('a')).toEqual(A);
  });

  it('does not keep an overlapping read once more invalidations arrived than it can remember', async () => {
    const { bus, cache } = setup();
    const load = deferred<Record>();
    const reading = cache.through(
      'a',
      () => load.promise,
      (value) => [`user:${value.userId}`],
    );
    await bus.publish('user:u1'); // its own topic, then enough others to push it out of the record
    for (let n = 0; n < 1_000; n++) await bus.publish(`user:other-${n}`);
    load.resolve(A);
    expect(await reading).toEqual(A);
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not let a miss after an invalidation share the read that overlapped it', async () => {
    const { bus, cache } = setup();
    const stale = deferred<Record>();
    let loads = 0;
    const load = () => {
      loads++;
      return loads === 1 ? stale.promise : Promise.resolve({ ...A, name: 'fresh' });
    };
    const first = cache.through('a', load, () => ['user:u1']);
    await bus.publish('user:u1');
    const second = cache.through('a', load, () => ['user:u1']);
    stale.resolve(A);
    expect(await first).toEqual(A);
    expect((await second).name).toBe('fresh');
    expect(loads).toBe(2);
    expect(cache.get('a')?.name).toBe('fresh');
  });

  it('stops listening at close() and forgets everything', async () => {
    const { bus, cache, read } = setup();
    await read(A);
    expect(bus.listenerCount).toBe(1);
    cache.close();
    expect(bus.listenerCount).toBe(0);
    expect(cache.size).toBe(0);
  });
});

describe('HotCache: loads', () => {
  it('shares one load among concurrent misses on a key', async () => {
    const { cache } = setup();
    const load = deferred<Record>();
    let loads = 0;
    const loader = () => {
      loads++;
      return load.promise;
    };
    const readers = [1, 2, 3].map(() => cache.through('a', loader, () => []));
    load.resolve(A);
    expect(await Promise.all(readers)).toEqual([A, A, A]);
    expect(loads).toBe(1);
    // Kept: the next read is a hit.
    await cache.through('a', loader, () => []);
    expect(loads).toBe(1);
  });

  it('keeps no failed load: the next call loads again', async () => {
    const { cache } = setup();
    let loads = 0;
    const failing = () => {
      loads++;
      return Promise.reject(new Error('database down'));
    };
    const both = [cache.through('a', failing, () => []), cache.through('a', failing, () => [])];
    for (const outcome of await Promise.allSettled(both)) expect(outcome.status).toBe('rejected');
    expect(loads).toBe(1);
    expect(cache.size).toBe(0);
    await expect(cache.through('a', failing, () => [])).rejects.toThrow('database down');
    expect(loads).toBe(2);
  });

  it('does not keep a value keep() refuses', async () => {
    const { cache, read, loads } = setup();
    expect(await read(A, () => false)).toEqual(A);
    expect(cache.size).toBe(0);
    await read(A, () => false);
    expect(loads()).toBe(2);
  });

  it('evicts the oldest read beyond maxEntries', async () => {
    const { cache, read } = setup({ maxEntries: 2 });
    await read(A);
    await read(C);
    await read(B);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toEqual(C);
    expect(cache.get('b')).toEqual(B);
  });

  it('changes every entry tagged with a topic in place, keeping its age', async () => {
    const { bus, clock, cache, read } = setup();
    await Promise.all([read(A), read(B), read(C)]);
    clock.now = T0 + FALLBACK_MS / 2;
    cache.updateTagged('user:u1', (value) => ({ ...value, name: `${value.name}!` }));
    expect(cache.get('a')?.name).toBe('first!');
    expect(cache.get('b')?.name).toBe('second!');
    expect(cache.get('c')?.name).toBe('third');
    bus.up = false;
    clock.now = T0 + FALLBACK_MS;
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('HotCache: options', () => {
  it.each([
    ['maxEntries', 0],
    ['maxEntries', 1.5],
    ['maxAgeMs', -1],
    ['maxAgeMs', Number.NaN],
    ['fallbackTtlMs', 0],
    ['fallbackTtlMs', '1000'],
  ])('refuses %s = %s', (option, value) => {
    expect(() => new HotCache(new FakeBus(), 'test cache', { [option]: value })).toThrow(
      expect.objectContaining({ code: 'OPTION_INVALID', owner: 'test cache', option }),
    );
  });
});
