// McpSessionStore on svc_mcp_sessions: the same rules as MemoryMcpSessionStore,
// shared by every process on the database. A row is live while expires_at (last_seen + ttlMs) is ahead of the
// store's clock; `use` and `close` are one statement each, `open` one short transaction that evicts past
// both caps (the owner's, then the global one). Time comes from the store's clock, never the database's.
import type { ProtocolVersion } from '../../mcp/protocol/versions.js';
import {
  maxPerCallerOf,
  ownerOf,
  type McpSessionLimits,
  type McpSessionRecord,
  type McpSessionStore,
} from '../../mcp/server/session-store.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import type { SqlClient } from './client.js';

export interface SqlMcpSessionStoreOptions {
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The columns of a McpSessionRecord, named as its fields (rows.ts). */
const RECORD = 'id, caller, owner, protocol_version AS "protocolVersion"';

// $1 id, $2 caller, $3 version, $4 now, $5 ttlMs, $6 owner. An id already stored (only an expired or a
// colliding one: ids are random) is replaced, as the memory store's Map.set does.
const OPEN = `
INSERT INTO svc_mcp_sessions (id, caller, owner, protocol_version, last_seen, expires_at)
VALUES ($1, $2, $6, $3, $4, $4::bigint + $5::bigint)
ON CONFLICT (id) DO UPDATE SET
  caller = excluded.caller, owner = excluded.owner, protocol_version = excluded.protocol_version,
  last_seen = excluded.last_seen, expires_at = excluded.expires_at`;

// Serialises opens (see open()); a key no other lock of svc uses.
const OPEN_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('svc:mcp-sessions', 0))`;

// $1 now, $2 the id just opened, $3 maxSessions. Deletes the least recently used live rows beyond
// maxSessions: oldest last_seen first; among rows seen at the same instant the one just opened goes last (it
// is the most recent), then by id. Expired rows do not count; the sweeper deletes them.
const EVICT = `
DELETE FROM svc_mcp_sessions WHERE id IN (
  SELECT id FROM svc_mcp_sessions WHERE expires_at > $1
  ORDER BY last_seen, id = $2, id
  LIMIT GREATEST((SELECT count(*) FROM svc_mcp_sessions WHERE expires_at > $1) - $3::bigint, 0)
)`;

// $1 now, $2 the id just opened, $3 maxPerCaller, $4 owner. The same for one owner's live rows, so a caller
// past its allowance loses its own least recently used session, never another caller's.
const EVICT_OWNED = `
DELETE FROM svc_mcp_sessions WHERE id IN (
  SELECT id FROM svc_mcp_sessions WHERE owner = $4 AND expires_at > $1
  ORDER BY last_seen, id = $2, id
  LIMIT GREATEST(
    (SELECT count(*) FROM svc_mcp_sessions WHERE owner = $4 AND expires_at > $1) - $3::bigint, 0)
)`;

// $1 id, $2 caller, $3 now, $4 ttlMs. The compare-and-set: only the owner's live row is touched; a foreign
// caller's call matches nothing and changes nothing.
const USE = `
UPDATE svc_mcp_sessions SET last_seen = $3, expires_at = $3::bigint + $4::bigint
WHERE id = $1 AND caller = $2 AND expires_at > $3
RETURNING ${RECORD}`;

const CLOSE = `DELETE FROM svc_mcp_sessions WHERE id = $1 AND caller = $2 AND expires_at > $3 RETURNING id`;

interface SessionRow {
  id: string;
  caller: string;
  owner: string;
  protocolVersion: string;
}

export class SqlMcpSessionStore implements McpSessionStore {
  readonly ttlMs: number;
  readonly maxSessions: number;
  readonly maxPerCaller: number;
  private readonly now: () => number;

  constructor(
    private readonly client: SqlClient,
    limits: McpSessionLimits,
    options: SqlMcpSessionStoreOptions = {},
  ) {
    this.ttlMs = positiveWholeNumber(limits.ttlMs, 0, 'SqlMcpSessionStore', 'ttlMs');
    this.maxSessions = positiveWholeNumber(limits.maxSessions, 0, 'SqlMcpSessionStore', 'maxSessions');
    this.maxPerCaller = maxPerCallerOf(limits, 'SqlMcpSessionStore');
    this.now = options.now ?? Date.now;
  }

  /**
   * Insert and eviction run in one transaction behind a transaction-scoped advisory lock. A single
   * INSERT … + DELETE statement would not do: under READ COMMITTED two concurrent opens do not see each
   * other's new row, so each would keep maxSessions counting only itself and the end state could hold more.
   * Behind the lock each open counts every row the previous ones committed, so however many processes open
   * at once, at most maxSessions live sessions remain, and at most maxPerCaller of any one owner. Opens are
   * rare (one per initialize) and the lock is held for three short statements; `use` and `close` never take
   * it.
   */
  async open(record: McpSessionRecord): Promise<void> {
    const now = this.now();
    const owner = ownerOf(record);
    await this.client.transaction(async (tx) => {
      await tx.query(OPEN_LOCK);
      await tx.query(OPEN, [record.id, record.caller, record.protocolVersion, now, this.ttlMs, owner]);
      await tx.query(EVICT_OWNED, [now, record.id, this.maxPerCaller, owner]);
      await tx.query(EVICT, [now, record.id, this.maxSessions]);
    });
  }

  async use(id: string, caller: string): Promise<McpSessionRecord | undefined> {
    const { rows } = await this.client.query<SessionRow>(USE, [id, caller, this.now(), this.ttlMs]);
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      caller: row.caller,
      owner: row.owner,
      protocolVersion: row.protocolVersion as ProtocolVersion,
    };
  }

  async close(id: string, caller: string): Promise<boolean> {
    const { rowCount } = await this.client.query(CLOSE, [id, caller, this.now()]);
    return rowCount === 1;
  }
}
