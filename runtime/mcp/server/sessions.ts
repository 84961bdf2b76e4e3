// Tool sessions over HTTP: opened by a successful initialize,
// bound to the caller that opened it, kept while used (30 min idle by default), at most 1000 live with the
// least recently used evicted first, ended by DELETE. One caller holds at most `maxPerCaller` (16) of them:
// past that its own least recently used goes, so a flood of initializes from one user or address evicts
// only its own sessions, never another caller's. The records live in a McpSessionStore (memory by default,
// or PostgreSQL/Redis shared by several processes); the calls a session is running live with the process
// that runs them, so notifications/cancelled and DELETE cancel only calls running here.
import { randomBytes } from 'node:crypto';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import { CallerKeys, type SessionCaller } from './caller.js';
import type { CallCancellation } from './cancellation.js';
import { memoryMcpSessions } from './memory-session-store.js';
import type { McpConnection, RunningCalls } from './server.js';
import {
  DEFAULT_MAX_SESSIONS_PER_CALLER,
  type McpSessionStore,
  type McpSessionStoreFactory,
} from './session-store.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';

export const DEFAULT_SESSION_TTL_MS = 30 * 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 1000;
export { DEFAULT_MAX_SESSIONS_PER_CALLER };

export interface McpSessionOptions {
  /** Idle time after which a session is gone, in milliseconds (default 30 min). */
  ttlMs?: number;
  /** Live sessions kept; opening one more evicts the least recently used (default 1000). */
  maxSessions?: number;
  /**
   * Live sessions one caller keeps (a user, or an anonymous caller's client address); opening one more
   * evicts that caller's least recently used (default 16).
   */
  maxPerCaller?: number;
  /** Where sessions live: a factory given the limits above (default in this process's memory). */
  store?: McpSessionStoreFactory;
  /**
   * The service secret (SVC_SECRET): anonymous callers are recognised by a fingerprint keyed from it, so
   * every process sharing it and the store serves their sessions. Default a key random per process.
   */
  secret?: string;
}

const SESSION_OPTIONS = optionKeys<McpSessionOptions>({
  ttlMs: true,
  maxSessions: true,
  maxPerCaller: true,
  store: true,
  secret: true,
});

export interface McpSession extends McpConnection {
  readonly id: string;
}

export class SessionTable {
  readonly ttlMs: number;
  readonly maxSessions: number;
  readonly maxPerCaller: number;
  /** How the endpoint tells callers apart. */
  readonly callers: CallerKeys;
  private readonly store: McpSessionStore;
  /** Calls running in this process, by session; an entry exists only while a call runs. */
  private readonly running = new Map<string, Map<JsonRpcId, CallCancellation>>();

  constructor(options: McpSessionOptions = {}) {
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      throw invalidOption('mcpRoutes', 'sessions', `false or an object { ${SESSION_OPTIONS.join(', ')} }`);
    rejectUnknownOptions(options, SESSION_OPTIONS, 'mcpRoutes: sessions');
    this.ttlMs = positiveWholeNumber(options.ttlMs, DEFAULT_SESSION_TTL_MS, 'mcpRoutes', 'sessions.ttlMs');
    this.maxSessions = positiveWholeNumber(
      options.maxSessions,
      DEFAULT_MAX_SESSIONS,
      'mcpRoutes',
      'sessions.maxSessions',
    );
    this.maxPerCaller = positiveWholeNumber(
      options.maxPerCaller,
      DEFAULT_MAX_SESSIONS_PER_CALLER,
      'mcpRoutes',
      'sessions.maxPerCaller',
    );
    const { store, secret } = options;
    if (store !== undefined && typeof store !== 'function')
      throw invalidOption('mcpRoutes', 'sessions.store', 'a store factory (openStores().mcpSessions)');
    if (secret !== undefined && (typeof secret !== 'string' || secret === ''))
      throw invalidOption('mcpRoutes', 'sessions.secret', 'a non-empty string');
    this.callers = new CallerKeys(secret);
    this.store = (store ?? memoryMcpSessions)({
      ttlMs: this.ttlMs,
      maxSessions: this.maxSessions,
      maxPerCaller: this.maxPerCaller,
    });
  }

  async open(caller: SessionCaller, protocolVersion: ProtocolVersion): Promise<McpSession> {
    const id = randomBytes(24).toString('base64url');
    await this.store.open({ id, caller: caller.key, owner: caller.owner, protocolVersion });
    return this.connection(id, protocolVersion);
  }

  /** The caller's live session with this id, its idle timer reset; undefined when unknown, expired or foreign. */
  async use(id: string, caller: string): Promise<McpSession | undefined> {
    const record = await this.store.use(id, caller);
    return record === undefined ? undefined : this.connection(id, record.protocolVersion);
  }

  /** Ends the caller's session and cancels its calls running here; false when there was none to end. */
  async close(id: string, caller: string): Promise<boolean> {
    if (!(await this.store.close(id, caller))) return false;
    for (const cancellation of this.running.get(id)?.values() ?? []) cancellation.cancel();
    this.running.delete(id);
    return true;
  }

  /** A connection whose running-call map is shared by every request of the session in this process. */
  private connection(id: string, protocolVersion: ProtocolVersion): McpSession {
    return { id, protocolVersion, running: new SessionCalls(this.running, id) };
  }
}

/**
 * The calls of one session running in this process: a view of the table's entry for it, made and dropped as
 * calls come and go. A class, so a call pays one small object rather than three closures.
 */
class SessionCalls implements RunningCalls {
  constructor(
    private readonly table: Map<string, Map<JsonRpcId, CallCancellation>>,
    private readonly id: string,
  ) {}

  get(requestId: JsonRpcId): CallCancellation | undefined {
    return this.table.get(this.id)?.get(requestId);
  }

  set(requestId: JsonRpcId, cancellation: CallCancellation): void {
    let calls = this.table.get(this.id);
    if (calls === undefined) this.table.set(this.id, (calls = new Map()));
    calls.set(requestId, cancellation);
  }

  delete(requestId: JsonRpcId): boolean {
    const calls = this.table.get(this.id);
    if (calls === undefined) return false;
    const deleted = calls.delete(requestId);
    if (calls.size === 0) this.table.delete(this.id);
    return deleted;
  }
}
