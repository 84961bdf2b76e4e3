// The in-memory idempotency store: entries live `ttlMs`, at most `maxEntries` are kept and
// the oldest (the first to expire: every write renews the full ttl) is evicted to make room. Every operation is synchronous inside, so setPending is atomic within
// one process; several processes need a shared store.
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { positiveWholeNumber } from '../config/whole-number.js';
import { ExpiringMap } from '../stores/memory/expiring-map.js';
import type { IdempotencyRecord, IdempotencyStore } from './store.js';

export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;
export const DEFAULT_IDEMPOTENCY_MAX_ENTRIES = 10_000;

export interface MemoryIdempotencyStoreOptions {
  /** How long a pending or completed key is kept, in ms. Default 86400000 (24 h). */
  ttlMs?: number;
  /** Most keys kept at once; the oldest is evicted when full. Default 10000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of MemoryIdempotencyStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<MemoryIdempotencyStoreOptions>({
  ttlMs: true,
  maxEntries: true,
  now: true,
});

interface Entry {
  state: IdempotencyRecord | 'pending';
  expiresAt: number;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly ttlMs: number;
  /** Age order is expiry order: a key is stored anew whenever its expiry is renewed. */
  private readonly entries: ExpiringMap<Entry>;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemoryIdempotencyStore');
    this.ttlMs = positiveWholeNumber(
      options.ttlMs,
      DEFAULT_IDEMPOTENCY_TTL_MS,
      'MemoryIdempotencyStore',
      'ttlMs',
    );
    this.entries = new ExpiringMap<Entry>({
      owner: 'MemoryIdempotencyStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_IDEMPOTENCY_MAX_ENTRIES,
      expiresAt: (entry) => entry.expiresAt,
      expiryFollowsAge: true,
      now: options.now,
    });
  }

  get maxEntries(): number {
    return this.entries.maxEntries;
  }

  /** Keys currently held (expired ones included until touched or evicted). */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): Promise<IdempotencyRecord | 'pending' | undefined> {
    return Promise.resolve(this.entries.get(key)?.state);
  }

  setPending(key: string): Promise<boolean> {
    if (this.entries.get(key) !== undefined) return Promise.resolve(false);
    this.put(key, 'pending');
    return Promise.resolve(true);
  }

  complete(key: string, record: IdempotencyRecord): Promise<void> {
    this.put(key, { ...record });
    return Promise.resolve();
  }

  release(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  private put(key: string, state: Entry['state']): void {
    const now = this.entries.now();
    this.entries.set(key, { state, expiresAt: now + this.ttlMs }, now);
  }
}
