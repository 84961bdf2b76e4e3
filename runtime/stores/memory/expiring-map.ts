// The one bounded map with expiry behind every in-memory store (rate limits, login throttle, sessions and
// tokens, idempotency keys, MCP sessions): every store is bounded and says how it evicts. Entries are kept in
// age order (the first is the oldest; `set` and `touch` move an entry to the newest end, so a store that
// touches on use gets LRU order). An entry lives while `expiresAt(value) > now`. When full, a new key first
// sweeps the expired entries, then evicts the oldest entry the store allows to go (`evictable`); when none
// may go, `whenFull` decides: 'evict-oldest' drops the oldest anyway, 'refuse' keeps them all and refuses the
// new key until the earliest expiry (the rate-limit store fails closed rather than free a bucket that is
// still limiting its client). Optional indexes find the keys of a user, a family or an owner, in age order.
import { positiveWholeNumber } from '../../config/whole-number.js';

export interface ExpiringMapOptions<V, Index extends string> {
  /** Names the store in the OptionError for a bad `maxEntries`. */
  owner: string;
  /** Entries kept at most: the store's option, checked (a whole number, 1 or more). */
  maxEntries: number | undefined;
  /** Used when `maxEntries` is undefined. */
  defaultMaxEntries: number;
  /** When an entry stops mattering (epoch ms); it may only rise in place unless the store calls `changed`. */
  expiresAt: (value: V) => number;
  /** Which live entries may be evicted to make room. Default: any. */
  evictable?: (value: V, now: number) => boolean;
  /** When no live entry is evictable: evict the oldest anyway (default), or refuse the new key. */
  whenFull?: 'evict-oldest' | 'refuse';
  /**
   * True when age order is expiry order (a fixed time to live renewed by `set`/`touch`): a sweep then stops
   * at the first live entry instead of visiting all.
   */
  expiryFollowsAge?: boolean;
  /** Secondary indexes: name → the value an entry is found by. */
  indexes?: Readonly<Record<Index, (value: V) => string>>;
  /** Clock in epoch ms for calls that pass no `now`. Default `Date.now`. */
  now?: () => number;
}

export class ExpiringMap<V, Index extends string = never> {
  readonly maxEntries: number;
  private readonly entries = new Map<string, V>();
  private readonly indexes = new Map<Index, Map<string, Set<string>>>();
  private readonly indexKeys: Readonly<Record<Index, (value: V) => string>>;
  private readonly expiresAt: (value: V) => number;
  private readonly evictable: (value: V, now: number) => boolean;
  private readonly refuseWhenFull: boolean;
  private readonly expiryFollowsAge: boolean;
  private readonly clock: () => number;
  /** No entry expires before this (a lower bound): a sweep before then would find nothing. */
  private earliestExpiry = Number.POSITIVE_INFINITY;
  /** Set when a new key was refused: no room can appear before this time. */
  private fullUntil = Number.NEGATIVE_INFINITY;

  constructor(options: ExpiringMapOptions<V, Index>) {
    this.maxEntries = positiveWholeNumber(
      options.maxEntries,
      options.defaultMaxEntries,
      options.owner,
      'maxEntries',
    );
    this.expiresAt = options.expiresAt;
    this.evictable = options.evictable ?? (() => true);
    this.refuseWhenFull = options.whenFull === 'refuse';
    this.expiryFollowsAge = options.expiryFollowsAge ?? false;
    this.indexKeys = options.indexes ?? ({} as Record<Index, (value: V) => string>);
    for (const name of Object.keys(this.indexKeys) as Index[]) this.indexes.set(name, new Map());
    this.clock = options.now ?? Date.now;
  }

  /** Entries held, expired ones included until swept. */
  get size(): number {
    return this.entries.size;
  }

  /** When a refused key may find room: the earliest expiry known when it was refused. */
  get roomAt(): number {
    return this.fullUntil;
  }

  /** The time calls without `now` use. */
  now(): number {
    return this.clock();
  }

  /** The stored value itself, expired or not (callers copy before handing it out). */
  peek(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** The stored value while it lives at `now`; an expired one is removed and reads as undefined. */
  get(key: string, now: number = this.clock()): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined || this.expiresAt(value) > now) return value;
    this.delete(key);
    return undefined;
  }

  /**
   * Stores `value` under `key`, replacing any value there, as the newest entry; makes room first when full.
   * False (nothing stored) only with `whenFull: 'refuse'` when no entry may go.
   */
  set(key: string, value: V, now: number = this.clock()): boolean {
    this.delete(key);
    if (this.entries.size >= this.maxEntries && !this.makeRoom(now)) return false;
    this.entries.set(key, value);
    for (const [name, index] of this.indexes) {
      const indexed = this.indexKeys[name](value);
      const keys = index.get(indexed) ?? new Set<string>();
      keys.add(key);
      index.set(indexed, keys);
    }
    this.noteExpiry(value);
    return true;
  }

  /** Makes `key` the newest entry (used, for LRU order), in its indexes too; notes a changed expiry. */
  touch(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    for (const [name, index] of this.indexes) {
      const keys = index.get(this.indexKeys[name](value));
      keys?.delete(key);
      keys?.add(key);
    }
    this.noteExpiry(value);
  }

  /** Tells the map that the value under `key` was changed in place and may now expire earlier. */
  changed(key: string): void {
    const value = this.entries.get(key);
    if (value !== undefined) this.noteExpiry(value);
  }

  delete(key: string): boolean {
    const value = this.entries.get(key);
    if (value === undefined) return false;
    this.entries.delete(key);
    for (const [name, index] of this.indexes) {
      const indexed = this.indexKeys[name](value);
      const keys = index.get(indexed);
      keys?.delete(key);
      if (keys?.size === 0) index.delete(indexed);
    }
    return true;
  }

  /** The keys whose value has `indexed` in `index`, oldest first (a copy: deleting while iterating is safe). */
  keysBy(index: Index, indexed: string): string[] {
    return [...(this.indexes.get(index)?.get(indexed) ?? [])];
  }

  /** Removes every entry expired at `now`. */
  sweep(now: number = this.clock()): void {
    if (this.earliestExpiry > now) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [key, value] of this.entries) {
      const expiresAt = this.expiresAt(value);
      if (expiresAt <= now) {
        this.delete(key);
      } else if (this.expiryFollowsAge) {
        earliest = expiresAt;
        break;
      } else if (expiresAt < earliest) {
        earliest = expiresAt;
      }
    }
    this.earliestExpiry = earliest;
  }

  /** Frees one slot: expired entries first, then the oldest evictable, then as `whenFull` says. */
  private makeRoom(now: number): boolean {
    if (now < this.fullUntil) return false;
    this.sweep(now);
    if (this.entries.size < this.maxEntries) return true;
    for (const [key, value] of this.entries) {
      if (this.evictable(value, now)) {
        this.delete(key);
        return true;
      }
    }
    if (this.refuseWhenFull) {
      this.fullUntil = this.earliestExpiry;
      return false;
    }
    const oldest = this.entries.keys().next();
    if (oldest.done !== true) this.delete(oldest.value);
    return true;
  }

  private noteExpiry(value: V): void {
    const expiresAt = this.expiresAt(value);
    if (expiresAt < this.earliestExpiry) this.earliestExpiry = expiresAt;
  }
}
