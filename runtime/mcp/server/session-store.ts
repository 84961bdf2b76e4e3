// Where tool sessions live (seed 001 "States and transitions", Tool session rows; DESIGN §6 "MCP sessions").
// In memory by default; a shared store (PostgreSQL or Redis, openStores().mcpSessions) lets several
// processes serve one session, so a client behind a load balancer keeps its session on any of them.
import type { ProtocolVersion } from '../protocol/versions.js';

export interface McpSessionRecord {
  readonly id: string;
  /** Who opened it (callerKey): another caller presenting the id is treated as not found. */
  readonly caller: string;
  /** The version initialize negotiated. */
  readonly protocolVersion: ProtocolVersion;
}

export interface McpSessionLimits {
  /** Idle time after which a session is gone, in milliseconds. */
  readonly ttlMs: number;
  /** Live sessions kept; opening one more evicts the least recently used. */
  readonly maxSessions: number;
}

/** A store of tool sessions with the limits it was made for. Every method may reject with STORE_UNAVAILABLE. */
export interface McpSessionStore {
  /** Keeps a new session; beyond `maxSessions` live ones the least recently used are gone. */
  open(record: McpSessionRecord): Promise<void>;
  /**
   * The caller's live session with this id, its idle time reset (and it becomes the most recently used);
   * undefined when unknown, expired, evicted, ended or opened by another caller (which leaves it untouched).
   */
  use(id: string, caller: string): Promise<McpSessionRecord | undefined>;
  /** Ends the caller's session; false when there was none of this caller to end. */
  close(id: string, caller: string): Promise<boolean>;
}

/** How mcpRoutes gets a store for its limits (`openStores().mcpSessions`, or `memoryMcpSessions`). */
export type McpSessionStoreFactory = (limits: McpSessionLimits) => McpSessionStore;
