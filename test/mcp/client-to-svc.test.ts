// svc talking to svc: McpClient against svc's own /mcp endpoint (in process, every adapter) and against
// `svc mcp` launched over stdio, the way one svc service consumes another's tools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClientTransport, McpClient, StdioClientTransport, mcpPlugin, mcpRoutes, route } from 'svckit';
import { REPO_ROOT, SVC_BIN } from '../cli/run-svc.js';
import { adapters, type RunningServer } from '../http/harness.js';

const routes = [
  route({
    method: 'GET',
    url: '/sum',
    query: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    meta: { mcp: { name: 'sum', description: 'Adds two integers.' } },
    handler: ({ query }) => {
      const { a, b } = query as unknown as { a: number; b: number };
      return { sum: a + b };
    },
  }),
  ...mcpRoutes(),
];

describe.each(adapters)('McpClient against svc /mcp on $name', (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await adapter.start({
      routes,
      plugins: [mcpPlugin({ serverInfo: { name: 'adder', version: '2.0.0' } })],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('connects, lists, calls, gets validation errors as results, and ends its session on close', async () => {
    const transport = new HttpClientTransport(`${server.url}/mcp`);
    const client = new McpClient(transport);
    const init = await client.connect();
    expect(init).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'adder', version: '2.0.0' },
    });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['sum']);
    expect(await client.callTool('sum', { a: 2, b: 40 })).toMatchObject({ structuredContent: { sum: 42 } });
    const invalid = await client.callTool('sum', { a: 'two', b: 1 });
    expect(invalid).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'HTTP_VALIDATION', part: 'query' } },
    });
    const sessionId = transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    await client.close();
    const after = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(after.status).toBe(404);
  });
});

describe('McpClient against `svc mcp` over stdio', () => {
  it('lists the reference service tools and a call that needs a user answers AUTH_REQUIRED', async () => {
    const client = new McpClient(
      new StdioClientTransport({
        command: process.execPath,
        args: [SVC_BIN, 'mcp'],
        cwd: REPO_ROOT,
        env: { DATABASE_URL: 'memory', REDIS_URL: '', NODE_ENV: 'test' },
        stderr: 'ignore',
      }),
    );
    try {
      expect((await client.listTools()).map((tool) => tool.name)).toEqual([
        'get_notes',
        'get_notes_by_id',
        'post_notes',
      ]);
      const denied = await client.callTool('get_notes', {});
      expect(denied).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'AUTH_REQUIRED' } },
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});
