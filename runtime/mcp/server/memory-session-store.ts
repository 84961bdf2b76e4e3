// Tool sessions in this process's memory: a bounded expiring map in recency order (the first entry is the
// least recently used; using a session moves it to the end), idle expiry checked when a session is used and
// swept when one opens. Each owner's sessions are indexed in the same recency order, so its least recently
// used is found without a scan.
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import {
  maxPerCallerOf,
  ownerOf,
  type McpSessionLimits,
  type McpSessionRecord,
  type McpSessionStore,
} from './session-store.js';

interface Entry {
  record: McpSessionRecord & { owner: string };
  lastSeen: number;
}

export class MemoryMcpSessionStore implements McpSessionStore {
  private readonly sessions: ExpiringMap<Entry, 'owner'>;
  private readonly maxPerCaller: number;

  constructor(limits: McpSessionLimits, now: () => number = Date.now) {
    this.maxPerCaller = maxPerCallerOf(limits, 'MemoryMcpSessionStore');
    this.sessions = new ExpiringMap<Entry, 'owner'>({
      owner: 'MemoryMcpSessionStore',
      maxEntries: limits.maxSessions,
      defaultMaxEntries: limits.maxSessions,
      expiresAt: (entry) => entry.lastSeen + limits.ttlMs,
      // Idle expiry renewed on every use, which also moves the session to the newest end.
      expiryFollowsAge: true,
      indexes: { owner: (entry) => entry.record.owner },
      now,
    });
  }

  /** Live and expired-but-not-yet-swept sessions. */
  get size(): number {
    return this.sessions.size;
  }

  // Synchronous from start to end, so concurrent opens cannot interleave: the cap holds without a lock.
  open(record: McpSessionRecord): Promise<void> {
    const now = this.sessions.now();
    this.sessions.sweep(now);
    this.sessions.delete(record.id);
    const owner = ownerOf(record);
    const owned = this.sessions.keysBy('owner', owner);
    for (let index = 0; owned.length - index >= this.maxPerCaller; index++)
      this.sessions.delete(owned[index] as string);
    // Beyond maxSessions the least recently used goes (the map evicts the oldest).
    this.sessions.set(record.id, { record: { ...record, owner }, lastSeen: now }, now);
    return Promise.resolve();
  }

  use(id: string, caller: string): Promise<McpSessionRecord | undefined> {
    return Promise.resolve(this.touch(id, caller)?.record);
  }

  close(id: string, caller: string): Promise<boolean> {
    const entry = this.touch(id, caller);
    if (entry !== undefined) this.sessions.delete(id);
    return Promise.resolve(entry !== undefined);
  }

  private touch(id: string, caller: string): Entry | undefined {
    const now = this.sessions.now();
    const entry = this.sessions.get(id, now);
    if (entry === undefined || entry.record.caller !== caller) return undefined;
    entry.lastSeen = now;
    this.sessions.touch(id);
    return entry;
  }
}

/** The default store factory: sessions in this process's memory. */
export const memoryMcpSessions = (limits: McpSessionLimits): McpSessionStore =>
  new MemoryMcpSessionStore(limits);
