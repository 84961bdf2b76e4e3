// What the in-memory auth stores share (DESIGN §10: every in-memory store is bounded and says how it evicts):
// records keyed by a hash, each with an expiry, at most `maxEntries` of them, and optional secondary indexes
// (the sessions of a user, the tokens of a family). When full, a new record first sweeps the expired ones (as
// of the caller's `now`), then evicts the oldest by insertion order. Indexes follow every removal.

import { positiveWholeNumber } from '../../config/whole-number.js';

/** The `maxEntries` option of a memory store: a whole number, 1 or more; a TypeError names the store. */
export function checkedMaxEntries(value: number | undefined, fallback: number, store: string): number {
  return positiveWholeNumber(value, fallback, store, 'maxEntries');
}

export class ExpiringRecords<R extends { expiresAt: number }, Index extends string = never> {
  /** Insertion order is age order: the first entry is the oldest. */
  private readonly records = new Map<string, R>();
  private readonly indexes = new Map<Index, Map<string, Set<string>>>();
  /** No record expires before this (a lower bound): a sweep before then would find nothing. */
  private earliestExpiry = Infinity;

  constructor(
    readonly maxEntries: number,
    private readonly indexKeys: Readonly<Record<Index, (record: R) => string>>,
  ) {
    for (const name of Object.keys(indexKeys) as Index[]) this.indexes.set(name, new Map());
  }

  /** Records held, expired ones included until swept. */
  get size(): number {
    return this.records.size;
  }

  /** The stored record itself (callers copy before handing it out), expired or not. */
  peek(key: string): R | undefined {
    return this.records.get(key);
  }

  /** The stored record while it lives at `now`; an expired one is removed and reads as undefined. */
  live(key: string, now: number): R | undefined {
    const record = this.records.get(key);
    if (record === undefined || record.expiresAt > now) return record;
    this.delete(key);
    return undefined;
  }

  /** Stores `record` under `key`, replacing any record there; makes room first when full. */
  set(key: string, record: R, now: number): void {
    this.delete(key);
    if (this.records.size >= this.maxEntries) this.makeRoom(now);
    this.records.set(key, record);
    for (const [name, index] of this.indexes) {
      const value = this.indexKeys[name](record);
      const keys = index.get(value) ?? new Set<string>();
      keys.add(key);
      index.set(value, keys);
    }
    this.earliestExpiry = Math.min(this.earliestExpiry, record.expiresAt);
  }

  delete(key: string): void {
    const record = this.records.get(key);
    if (record === undefined) return;
    this.records.delete(key);
    for (const [name, index] of this.indexes) {
      const value = this.indexKeys[name](record);
      const keys = index.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index.delete(value);
    }
  }

  /** The keys whose record has `value` in `index` (a copy: deleting while iterating is safe). */
  keysBy(index: Index, value: string): string[] {
    return [...(this.indexes.get(index)?.get(value) ?? [])];
  }

  /** Frees one slot: expired records first, else the oldest. */
  private makeRoom(now: number): void {
    if (this.earliestExpiry <= now) {
      let earliest = Infinity;
      for (const [key, record] of this.records) {
        if (record.expiresAt <= now) this.delete(key);
        else earliest = Math.min(earliest, record.expiresAt);
      }
      this.earliestExpiry = earliest;
    }
    if (this.records.size < this.maxEntries) return;
    const oldest = this.records.keys().next();
    if (oldest.done !== true) this.delete(oldest.value);
  }
}
