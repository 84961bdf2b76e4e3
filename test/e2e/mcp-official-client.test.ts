// The official MCP SDK client (@modelcontextprotocol/sdk) against the reference service, as an agent uses
// it: over Streamable HTTP at /mcp on every adapter (`svc start`), and over stdio by launching `svc mcp`.
// It lists the tools and calls one that succeeds, one that needs a signed-in user and one that fails
// validation.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase, type TestDatabase } from '../backends.js';
import { REPO_ROOT, SVC_BIN } from '../cli/run-svc.js';
import { startService, type RunningService } from './service-process.js';

const SECRET = randomBytes(32).toString('base64url');
const SERVICE_ENV = {
  NODE_ENV: 'development',
  // A database of the suite's own on the local PostgreSQL, shared by the HTTP service and `svc mcp`.
  DATABASE_URL: '',
  REDIS_URL: '',
  SVC_SECRET: SECRET,
};
let database: TestDatabase;
beforeAll(async () => {
  database = await createDatabase();
  SERVICE_ENV.DATABASE_URL = database.url;
});
afterAll(() => database.drop());
const NOTE_TOOLS = ['get_notes', 'get_notes_by_id', 'post_notes'];

interface ToolOutcome {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: unknown[];
}

function errorCode(result: ToolOutcome): unknown {
  return (result.structuredContent?.error as { code?: unknown } | undefined)?.code;
}

async function signUp(url: string, name: string): Promise<string> {
  const response = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}-${Date.now()}@example.com`, password: 'a long enough password' }),
  });
  expect(response.status).toBe(201);
  const { accessToken } = (await response.json()) as { accessToken: string };
  return `Bearer ${accessToken}`;
}

async function connectHttp(url: string, authorization?: string) {
  const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: authorization === undefined ? {} : { headers: { authorization } },
  });
  await client.connect(transport);
  return { client, transport };
}

describe.each(['fastify', 'express', 'hono'])('the official MCP client over HTTP on %s', (adapter) => {
  let service: RunningService;
  let authorization: string;

  beforeAll(async () => {
    service = await startService(REPO_ROOT, ['start'], { ...SERVICE_ENV, SVC_ADAPTER: adapter });
    authorization = await signUp(service.url, `agent-${adapter}`);
  }, 60_000);

  afterAll(async () => {
    expect(await service.stop()).toBe(0);
  });

  test('prints the MCP endpoint at start', () => {
    expect(service.output()).toMatch(/MCP\s+http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });

  test('a signed-in agent lists the note tools and creates, lists and validates notes', async () => {
    const { client, transport } = await connectHttp(service.url, authorization);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'notes-api', version: '0.1.0' });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(NOTE_TOOLS);
      const create = tools.find((tool) => tool.name === 'post_notes');
      expect(create?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
      expect(create?.inputSchema.required).toEqual(['title']);

      const created = (await client.callTool({
        name: 'post_notes',
        arguments: { title: 'from an agent', body: 'via MCP' },
      })) as ToolOutcome;
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ title: 'from an agent', body: 'via MCP' });
      const id = created.structuredContent?.id as string;

      const listed = (await client.callTool({ name: 'get_notes', arguments: { limit: 5 } })) as ToolOutcome;
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent?.items as { id: string }[]).map((note) => note.id)).toContain(id);

      const read = (await client.callTool({ name: 'get_notes_by_id', arguments: { id } })) as ToolOutcome;
      expect(read.structuredContent).toMatchObject({ id, title: 'from an agent' });

      const invalid = (await client.callTool({
        name: 'post_notes',
        arguments: { title: '' },
      })) as ToolOutcome;
      expect(invalid.isError).toBe(true);
      expect(invalid.structuredContent).toMatchObject({
        error: { code: 'HTTP_VALIDATION', part: 'body', issues: [{ path: 'title' }] },
      });
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  test('an anonymous agent sees no note tools and a call needs authentication', async () => {
    const { client } = await connectHttp(service.url);
    try {
      expect((await client.listTools()).tools).toEqual([]);
      const denied = (await client.callTool({ name: 'get_notes', arguments: {} })) as ToolOutcome;
      expect(denied.isError).toBe(true);
      expect(errorCode(denied)).toBe('AUTH_REQUIRED');
    } finally {
      await client.close();
    }
  });

  test('a terminated session is gone: its id answers 404', async () => {
    const { client, transport } = await connectHttp(service.url, authorization);
    const sessionId = transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    await transport.terminateSession();
    await client.close();
    const response = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization, 'mcp-session-id': sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'MCP_SESSION_NOT_FOUND' } });
  });
});

describe('the official MCP client over stdio (`svc mcp`)', () => {
  let service: RunningService;
  let authorization: string;

  beforeAll(async () => {
    // The access token comes from an HTTP instance with the same secret; svc mcp verifies it on its own.
    service = await startService(REPO_ROOT, ['start'], SERVICE_ENV);
    authorization = await signUp(service.url, 'stdio-agent');
  }, 60_000);

  afterAll(async () => {
    expect(await service.stop()).toBe(0);
  });

  async function launch(extraEnv: Record<string, string>) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SVC_BIN, 'mcp'],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), ...SERVICE_ENV, ...extraEnv },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'sdk-e2e-stdio', version: '1.0.0' });
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }

  test('lists every tool, creates a note and reports validation failures', async () => {
    const { client, stderr } = await launch({ SVC_MCP_AUTHORIZATION: authorization });
    try {
      expect(client.getServerVersion()).toEqual({ name: 'notes-api', version: '0.1.0' });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(NOTE_TOOLS);
      const created = (await client.callTool({
        name: 'post_notes',
        arguments: { title: 'over stdio' },
      })) as ToolOutcome;
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ title: 'over stdio' });
      const invalid = (await client.callTool({
        name: 'get_notes',
        arguments: { limit: 1000 },
      })) as ToolOutcome;
      expect(invalid.isError).toBe(true);
      expect(invalid.structuredContent).toMatchObject({ error: { code: 'HTTP_VALIDATION', part: 'query' } });
      // The start-up line went to stderr: stdout carries protocol messages only.
      expect(stderr()).toContain('notes-api 0.1.0 serving 3 tools over stdio');
    } finally {
      await client.close();
    }
  }, 60_000);

  test('without credentials a tool that needs a user answers AUTH_REQUIRED', async () => {
    const { client } = await launch({});
    try {
      const denied = (await client.callTool({ name: 'get_notes', arguments: {} })) as ToolOutcome;
      expect(denied.isError).toBe(true);
      expect(errorCode(denied)).toBe('AUTH_REQUIRED');
    } finally {
      await client.close();
    }
  }, 60_000);
});
