// Migration 5: a tool session remembers whose allowance it counts against (`sessions.maxPerCaller`): the
// user, or an anonymous caller's keyed client address. Sessions opened before it count against their caller.
export const sql = `
ALTER TABLE svc_mcp_sessions ADD COLUMN owner text;
UPDATE svc_mcp_sessions SET owner = caller;
ALTER TABLE svc_mcp_sessions ALTER COLUMN owner SET NOT NULL;
-- One owner's live sessions, least recently used first: the per-caller count and eviction.
CREATE INDEX svc_mcp_sessions_owner ON svc_mcp_sessions (owner, last_seen, id);
`;
