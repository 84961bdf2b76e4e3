// The in-memory MCP session store against the McpSessionStore contract every backend runs
// (test/runtime/contracts/mcp-session-store.ts); the shared stores run it in test/runtime/stores-*.test.ts.
import { MemoryMcpSessionStore } from 'svckit';
import { mcpSessionStoreContract } from '../runtime/contracts/mcp-session-store.js';

mcpSessionStoreContract(
  'MemoryMcpSessionStore',
  (limits, clock) => new MemoryMcpSessionStore(limits, clock.now),
);
