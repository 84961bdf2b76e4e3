// Tool sessions in this process's memory: a Map kept in recency order (the first entry is the least
// recently used), idle expiry checked when a session is used and swept from the old end when one opens.
import type { McpSessionLimits, McpSessionRecord, McpSessionStore } from './session-store.js';

interface Entry {
  record: McpSessionRecord;
  lastSeen: number;
}

export class MemoryMcpSessionStore implements McpSessionStore {
  private readonly sessions = new Map<string, Entry>();

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Live and expired-but-not-yet-swept sessions. */
  get size(): number {
    return this.sessions.size;
  }

  open(record: McpSessionRecord): Promise<void> {
    this.dropExpired();
    while (this.sessions.size >= this.limits.maxSessions) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
    this.sessions.set(record.id, { record, lastSeen: this.now() });
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
    const entry = this.sessions.get(id);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (now - entry.lastSeen >= this.limits.ttlMs) {
      this.sessions.delete(id);
      return undefined;
    }
    if (entry.record.caller !== caller) return undefined;
    entry.lastSeen = now;
    // Re-inserting moves it to the most recently used end.
    this.sessions.delete(id);
    this.sessions.set(id, entry);
    return entry;
  }

  /** Expired sessions sit at the least recently used end, so this stops at the first live one. */
  private dropExpired(): void {
    const now = this.now();
    for (const [id, entry] of this.sessions) {
      if (now - entry.lastSeen < this.limits.ttlMs) return;
      this.sessions.delete(id);
    }
  }
}

/** The default store factory: sessions in this process's memory. */
export const memoryMcpSessions = (limits: McpSessionLimits): McpSessionStore =>
  new MemoryMcpSessionStore(limits);
