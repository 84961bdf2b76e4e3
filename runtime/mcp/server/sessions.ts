// Tool sessions over HTTP (seed 001 "States and transitions", "Limits"): opened by a successful initialize,
// bound to the caller that opened it, kept while used (30 min idle by default), at most 1000 live with the
// least recently used evicted first, ended by DELETE. Kept in this process's memory: a client that reaches
// another process (or a restarted one) gets 404 and, as the protocol asks, must initialize again (docs/mcp.md:
// several instances need sticky routing or `sessions: false`).
import { randomBytes } from 'node:crypto';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import type { McpConnection } from './server.js';
import type { CallCancellation } from './cancellation.js';

export const DEFAULT_SESSION_TTL_MS = 30 * 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 1000;

export interface McpSessionOptions {
  /** Idle time after which a session is gone, in milliseconds (default 30 min). */
  ttlMs?: number;
  /** Live sessions kept; opening one more evicts the least recently used (default 1000). */
  maxSessions?: number;
}

export interface McpSession extends McpConnection {
  readonly id: string;
  /** Who opened it (callerKey); another caller presenting the id is treated as not found. */
  readonly caller: string;
  lastSeen: number;
}

export class SessionTable {
  readonly ttlMs: number;
  readonly maxSessions: number;
  /** In recency order: the first entry is the least recently used. */
  private readonly sessions = new Map<string, McpSession>();
  private readonly now: () => number;

  constructor(options: McpSessionOptions = {}, now: () => number = Date.now) {
    this.ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS;
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.now = now;
  }

  get size(): number {
    return this.sessions.size;
  }

  open(caller: string, protocolVersion: ProtocolVersion): McpSession {
    this.dropExpired();
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.values().next().value as McpSession;
      this.end(oldest);
    }
    const session: McpSession = {
      id: randomBytes(24).toString('base64url'),
      caller,
      protocolVersion,
      running: new Map<JsonRpcId, CallCancellation>(),
      lastSeen: this.now(),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The caller's live session with this id, its idle timer reset; undefined when unknown, expired or foreign. */
  use(id: string, caller: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    const now = this.now();
    if (now - session.lastSeen >= this.ttlMs) {
      this.end(session);
      return undefined;
    }
    if (session.caller !== caller) return undefined;
    session.lastSeen = now;
    // Re-inserting moves it to the most recently used end.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  /** Ends the caller's session; false when there was none to end. */
  close(id: string, caller: string): boolean {
    const session = this.use(id, caller);
    if (session === undefined) return false;
    this.end(session);
    return true;
  }

  private end(session: McpSession): void {
    this.sessions.delete(session.id);
    for (const cancellation of session.running.values()) cancellation.cancel();
    session.running.clear();
  }

  /** Expired sessions sit at the least recently used end, so this stops at the first live one. */
  private dropExpired(): void {
    const now = this.now();
    for (const session of this.sessions.values()) {
      if (now - session.lastSeen < this.ttlMs) return;
      this.end(session);
    }
  }
}
