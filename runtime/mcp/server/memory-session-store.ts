// Tool sessions in this process's memory: a Map kept in recency order (the first entry is the least
// recently used), idle expiry checked when a session is used and swept from the old end when one opens.
// Each owner's sessions are also kept in recency order, so its least recently used is found without a scan.
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
  private readonly sessions = new Map<string, Entry>();
  /** Ids by owner, each set in recency order like `sessions`; an owner with no live session has no entry. */
  private readonly owners = new Map<string, Set<string>>();
  private readonly maxPerCaller: number;

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.maxPerCaller = maxPerCallerOf(limits, 'MemoryMcpSessionStore');
  }

  /** Live and expired-but-not-yet-swept sessions. */
  get size(): number {
    return this.sessions.size;
  }

  // Synchronous from start to end, so concurrent opens cannot interleave: the cap holds without a lock.
  open(record: McpSessionRecord): Promise<void> {
    this.dropExpired();
    this.remove(record.id);
    const owner = ownerOf(record);
    const owned = this.owners.get(owner);
    while (owned !== undefined && owned.size >= this.maxPerCaller)
      this.remove(owned.values().next().value as string);
    while (this.sessions.size >= this.limits.maxSessions)
      this.remove(this.sessions.keys().next().value as string);
    this.sessions.set(record.id, { record: { ...record, owner }, lastSeen: this.now() });
    this.ownedBy(owner).add(record.id);
    return Promise.resolve();
  }

  use(id: string, caller: string): Promise<McpSessionRecord | undefined> {
    return Promise.resolve(this.touch(id, caller)?.record);
  }

  close(id: string, caller: string): Promise<boolean> {
    const entry = this.touch(id, caller);
    if (entry !== undefined) this.remove(id);
    return Promise.resolve(entry !== undefined);
  }

  private touch(id: string, caller: string): Entry | undefined {
    const entry = this.sessions.get(id);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (now - entry.lastSeen >= this.limits.ttlMs) {
      this.remove(id);
      return undefined;
    }
    if (entry.record.caller !== caller) return undefined;
    entry.lastSeen = now;
    // Re-inserting moves it to the most recently used end, in both orders.
    this.sessions.delete(id);
    this.sessions.set(id, entry);
    const owned = this.ownedBy(entry.record.owner);
    owned.delete(id);
    owned.add(id);
    return entry;
  }

  private ownedBy(owner: string): Set<string> {
    let owned = this.owners.get(owner);
    if (owned === undefined) this.owners.set(owner, (owned = new Set()));
    return owned;
  }

  private remove(id: string): void {
    const entry = this.sessions.get(id);
    if (entry === undefined) return;
    this.sessions.delete(id);
    const owned = this.owners.get(entry.record.owner);
    owned?.delete(id);
    if (owned?.size === 0) this.owners.delete(entry.record.owner);
  }

  /** Expired sessions sit at the least recently used end, so this stops at the first live one. */
  private dropExpired(): void {
    const now = this.now();
    for (const [id, entry] of this.sessions) {
      if (now - entry.lastSeen < this.limits.ttlMs) return;
      this.remove(id);
    }
  }
}

/** The default store factory: sessions in this process's memory. */
export const memoryMcpSessions = (limits: McpSessionLimits): McpSessionStore =>
  new MemoryMcpSessionStore(limits);
