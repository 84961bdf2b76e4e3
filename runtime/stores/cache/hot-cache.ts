// A per-process cache of what the hot path reads from a shared store (a session, an API key, a role), kept
// honest by the invalidation bus. An entry is served while it is younger than `fallbackTtlMs` whatever the bus
// says, or younger than `maxAgeMs` when the bus has been up since the entry was read (same epoch): a change
// made through svc reaches every process at once while the bus is up, within `fallbackTtlMs` when it is down,
// and a change made behind svc's back (SQL by hand) within `maxAgeMs`. Entries are bounded in number; the
// oldest read goes first, which is also the first to stop being trusted.
import { positiveWholeNumber } from '../../config/whole-number.js';
import { EVERYTHING, type InvalidationBus } from './bus.js';

export const DEFAULT_CACHE_MAX_ENTRIES = 10_000;
export const DEFAULT_CACHE_MAX_AGE_MS = 30_000;
export const DEFAULT_CACHE_FALLBACK_TTL_MS = 1_000;
/** Invalidations remembered for the reads under way; past that, an overlapping read is not kept. */
const MAX_RECENT_INVALIDATIONS = 1_000;

export interface HotCacheOptions {
  /** Entries kept at most. Default 10 000. */
  maxEntries?: number;
  /** How long an entry is trusted while the bus is up, in ms. Default 30 000. */
  maxAgeMs?: number;
  /** How long an entry is trusted when the bus is down or was down since it was read, in ms. Default 1 000. */
  fallbackTtlMs?: number;
  /** Clock in epoch ms. Default `Date.now`. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  /** When the read that produced it started: the age is counted from there. */
  readAt: number;
  epoch: number;
  tags: readonly string[];
}

interface Load<V> {
  promise: Promise<V>;
  generation: number;
}

export class HotCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** topic → the keys of the entries tagged with it. */
  private readonly byTopic = new Map<string, Set<string>>();
  private readonly loading = new Map<string, Load<V>>();
  /** Counts the invalidations applied. */
  private generation = 0;
  /**
   * The topics invalidated while reads were under way, oldest first: a read that overlapped an invalidation of
   * one of its own topics is answered but not kept. Emptied whenever no read is under way.
   */
  private recent: { generation: number; topic: string }[] = [];
  /** The generation before the oldest entry of `recent`: a read older than that cannot be checked. */
  private recentSince = 0;
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly fallbackTtlMs: number;
  private readonly now: () => number;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly bus: InvalidationBus,
    owner: string,
    options: HotCacheOptions = {},
  ) {
    this.maxEntries = positiveWholeNumber(options.maxEntries, DEFAULT_CACHE_MAX_ENTRIES, owner, 'maxEntries');
    this.maxAgeMs = positiveWholeNumber(options.maxAgeMs, DEFAULT_CACHE_MAX_AGE_MS, owner, 'maxAgeMs');
    this.fallbackTtlMs = positiveWholeNumber(
      options.fallbackTtlMs,
      DEFAULT_CACHE_FALLBACK_TTL_MS,
      owner,
      'fallbackTtlMs',
    );
    this.now = options.now ?? Date.now;
    this.unsubscribe = bus.subscribe((topic) => this.invalidate(topic));
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached value of `key` when it may still be served; undefined otherwise. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.now();
    const age = now - entry.readAt;
    if (age < this.fallbackTtlMs) return entry.value;
    if (age < this.maxAgeMs && entry.epoch === this.bus.epoch && this.bus.isUp(now)) return entry.value;
    this.drop(key, entry);
    return undefined;
  }

  /**
   * The cached value of `key`, else `load()`'s answer, kept (tagged with `tags(value)`) when `keep(value)` and
   * no invalidation arrived while it was read. Concurrent misses on one key share one read.
   */
  async through(
    key: string,
    load: () => Promise<V>,
    tags: (value: V) => readonly string[],
    keep: (value: V) => boolean = () => true,
  ): Promise<V> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const shared = this.loading.get(key);
    if (shared !== undefined && shared.generation === generation) return shared.promise;
    const readAt = this.now();
    const epoch = this.bus.epoch;
    const promise = load().then(
      (value) => {
        if (keep(value)) {
          const topics = tags(value);
          if (!this.invalidatedSince(generation, topics)) this.put(key, value, readAt, epoch, topics);
        }
        this.settled(key, promise);
        return value;
      },
      (error: unknown) => {
        this.settled(key, promise);
        throw error;
      },
    );
    this.loading.set(key, { promise, generation });
    return promise;
  }

  /** Forgets `key`'s entry alone (one this process found no longer valid, such as an expired session). */
  forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) this.drop(key, entry);
  }

  /** Changes a cached value in place (a field this process itself wrote, like a key's last use). */
  update(key: string, change: (value: V) => V): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.value = change(entry.value);
  }

  /** Changes in place every cached value tagged `topic`. */
  updateTagged(topic: string, change: (value: V) => V): void {
    const keys = this.byTopic.get(topic);
    if (keys === undefined) return;
    for (const key of keys) this.update(key, change);
  }

  /** Drops every entry tagged `topic` (every entry for EVERYTHING); reads under way are not kept. */
  invalidate(topic: string): void {
    this.generation++;
    if (this.loading.size > 0) {
      if (this.recent.length >= MAX_RECENT_INVALIDATIONS) this.recentSince = this.recent.shift()!.generation;
      this.recent.push({ generation: this.generation, topic });
    }
    if (topic === EVERYTHING) {
      this.entries.clear();
      this.byTopic.clear();
      return;
    }
    const keys = this.byTopic.get(topic);
    if (keys === undefined) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry !== undefined) this.drop(key, entry);
    }
  }

  /** Stops listening to the bus and forgets everything. */
  close(): void {
    this.unsubscribe();
    this.invalidate(EVERYTHING);
  }

  /** Whether a read that started at `generation` overlapped an invalidation of one of `topics` (or of everything). */
  private invalidatedSince(generation: number, topics: readonly string[]): boolean {
    if (generation === this.generation) return false;
    if (generation < this.recentSince) return true; // its invalidations were forgotten: assume the worst
    for (const change of this.recent) {
      if (change.generation <= generation) continue;
      if (change.topic === EVERYTHING || topics.includes(change.topic)) return true;
    }
    return false;
  }

  private settled(key: string, promise: Promise<V>): void {
    if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
    if (this.loading.size === 0 && this.recent.length > 0) {
      this.recent = [];
      this.recentSince = this.generation;
    }
  }

  private put(key: string, value: V, readAt: number, epoch: number, tags: readonly string[]): void {
    const previous = this.entries.get(key);
    if (previous !== undefined && previous.readAt > readAt) return; // a later read already answered
    if (previous !== undefined) this.drop(key, previous);
    else if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.drop(oldest.value, this.entries.get(oldest.value) as Entry<V>);
    }
    this.entries.set(key, { value, readAt, epoch, tags });
    for (const topic of tags) {
      let keys = this.byTopic.get(topic);
      if (keys === undefined) this.byTopic.set(topic, (keys = new Set()));
      keys.add(key);
    }
  }

  private drop(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    for (const topic of entry.tags) {
      const keys = this.byTopic.get(topic);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTopic.delete(topic);
    }
  }
}
