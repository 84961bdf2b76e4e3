// The in-memory idempotency store (seed 001 "Limits"): entries live `ttlMs`, at most `maxEntries` are kept and
// the oldest is evicted to make room. Every operation is synchronous inside, so setPending is atomic within
// one process; several processes need a shared store.
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { positiveWholeNumber } from '../config/whole-number.js';
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
  readonly maxEntries: number;
  private readonly now: () => number;
  /** Insertion order is age order: a key is re-inserted whenever its expiry is renewed. */
  private readonly entries = new Map<string, Entry>();

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemoryIdempotencyStore');
    this.ttlMs = positiveWholeNumber(
      options.ttlMs,
      DEFAULT_IDEMPOTENCY_TTL_MS,
      'MemoryIdempotencyStore',
      'ttlMs',
    );
    this.maxEntries = positiveWholeNumber(
      options.maxEntries,
      DEFAULT_IDEMPOTENCY_MAX_ENTRIES,
      'MemoryIdempotencyStore',
      'maxEntries',
    );
    this.now = options.now ?? Date.now;
  }

  /** Keys currently held (expired ones included until touched or evicted). */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): Promise<IdempotencyRecord | 'pending' | undefined> {
    return Promise.resolve(this.live(key)?.state);
  }

  setPending(key: string): Promise<boolean> {
    if (this.live(key) !== undefined) return Promise.resolve(false);
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

  /** The entry when it has not expired; an expired one is dropped on sight. */
  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    this.entries.delete(key);
    return undefined;
  }

  private put(key: string, state: Entry['state']): void {
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { state, expiresAt: this.now() + this.ttlMs });
  }
}
