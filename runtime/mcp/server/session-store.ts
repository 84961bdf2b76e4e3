// Where tool sessions live (docs/mcp.md, "The HTTP endpoint"; docs/stores.md).
// In memory by default; a shared store (PostgreSQL or Redis, openStores().mcpSessions) lets several
// processes serve one session, so a client behind a load balancer keeps its session on any of them.
import { positiveWholeNumber } from '../../config/whole-number.js';
import type { ProtocolVersion } from '../protocol/versions.js';

/** Live sessions one caller may hold when the limits do not say (`sessions.maxPerCaller`). */
export const DEFAULT_MAX_SESSIONS_PER_CALLER = 16;

export interface McpSessionRecord {
  readonly id: string;
  /** Who opened it (callerKey): another caller presenting the id is treated as not found. */
  readonly caller: string;
  /**
   * Whose allowance it counts against (`maxPerCaller`): the user for a signed-in caller, the client address
   * for an anonymous one. Default `caller`.
   */
  readonly owner?: string;
  /** The version initialize negotiated. */
  readonly protocolVersion: ProtocolVersion;
}

export interface McpSessionLimits {
  /** Idle time after which a session is gone, in milliseconds. */
  readonly ttlMs: number;
  /** Live sessions kept; opening one more evicts the least recently used. */
  readonly maxSessions: number;
  /**
   * Live sessions one owner keeps; opening one more evicts that owner's least recently used (default
   * DEFAULT_MAX_SESSIONS_PER_CALLER).
   */
  readonly maxPerCaller?: number;
}

/** A store of tool sessions with the limits it was made for. Every method may reject with STORE_UNAVAILABLE. */
export interface McpSessionStore {
  /**
   * Keeps a new session. Beyond `maxPerCaller` live ones of its owner, that owner's least recently used are
   * gone; then beyond `maxSessions` live ones in all, the least recently used are gone. Both in one atomic
   * step however many processes open at once. Of sessions seen at the same instant the new one goes last.
   */
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

/** A store's `maxPerCaller`: the limit's, checked, or the default. */
export function maxPerCallerOf(limits: McpSessionLimits, owner: string): number {
  return positiveWholeNumber(limits.maxPerCaller, DEFAULT_MAX_SESSIONS_PER_CALLER, owner, 'maxPerCaller');
}

/** Whose allowance a session counts against: its owner, else (records without one) its caller. */
export function ownerOf(record: McpSessionRecord): string {
  return record.owner ?? record.caller;
}
