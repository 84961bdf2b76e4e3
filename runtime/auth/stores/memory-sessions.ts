// The in-memory session store: per process, lost on restart. Bounded by `maxEntries`
// (100000: every in-memory store is bounded and says how it evicts). When full, a new session first sweeps expired ones (as of its `createdAt`), then evicts
// the oldest (creation order). An evicted session signs its user out early; it is never taken for another.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import type { SessionRecord, SessionStore } from './sessions.js';

export const DEFAULT_SESSION_MAX_ENTRIES = 100_000;

export interface MemorySessionStoreOptions {
  /** Sessions kept at most. Default 100000. */
  maxEntries?: number;
}

function copySession(record: SessionRecord): SessionRecord {
  return { ...record, amr: [...record.amr] };
}

/** The keys of MemorySessionStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<MemorySessionStoreOptions>({ maxEntries: true });

export class MemorySessionStore implements SessionStore {
  private readonly sessions: ExpiringMap<SessionRecord, 'user'>;

  constructor(options: MemorySessionStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemorySessionStore');
    this.sessions = new ExpiringMap<SessionRecord, 'user'>({
      owner: 'MemorySessionStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_SESSION_MAX_ENTRIES,
      expiresAt: (record) => record.expiresAt,
      indexes: { user: (record) => record.userId },
    });
  }

  get maxEntries(): number {
    return this.sessions.maxEntries;
  }

  /** Sessions currently held (expired ones included until swept). */
  get size(): number {
    return this.sessions.size;
  }

  async create(idHash: string, record: SessionRecord): Promise<void> {
    this.sessions.set(idHash, copySession(record), record.createdAt);
  }

  async get(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const record = this.sessions.get(idHash, now);
    return record === undefined ? undefined : copySession(record);
  }

  async delete(idHash: string): Promise<void> {
    this.sessions.delete(idHash);
  }

  /** Counts every session of the user still held, including expired ones not yet swept (there is no `now`). */
  async deleteByUser(userId: string): Promise<number> {
    const ids = this.sessions.keysBy('user', userId);
    for (const idHash of ids) this.sessions.delete(idHash);
    return ids.length;
  }
}
