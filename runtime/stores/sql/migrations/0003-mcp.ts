// Migration 3: MCP tool sessions. Times are BIGINT
// epoch milliseconds from svc's clock. A session is live while expires_at (last_seen + the idle TTL) is ahead.
export const sql = `
CREATE TABLE svc_mcp_sessions (
  id text PRIMARY KEY,
  caller text NOT NULL,
  protocol_version text NOT NULL,
  last_seen bigint NOT NULL,
  expires_at bigint NOT NULL
);
-- The sweeper and the live count; the least recently used end for eviction.
CREATE INDEX svc_mcp_sessions_expires_at ON svc_mcp_sessions (expires_at);
CREATE INDEX svc_mcp_sessions_last_seen ON svc_mcp_sessions (last_seen, id);
`;
