// McpClient + HttpClientTransport against a real official-SDK server over Streamable HTTP, in both of the
// SDK's answer modes (event stream and JSON): handshake, headers, tools, errors, timeouts and cancellation,
// lost sessions, close.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClientTransport, McpClient } from '../../../runtime/mcp/client/index.js';
import { LATEST_PROTOCOL_VERSION } from '../../../runtime/mcp/protocol/versions.js';
import { startSdkHttpServer, type SdkHttpServer } from './fixtures/sdk-http-server.js';

/** A fetch that records the content type of every POST answer, to prove which answer mode was read. */
function recordingFetch(contentTypes: string[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'POST') contentTypes.push(response.headers.get('content-type') ?? '');
    return response;
  };
}

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function textOf(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text: string };
  expect(first.type).toBe('text');
  return first.text;
}

describe.each([
  { mode: 'event-stream answers', enableJsonResponse: false, contentType: 'text/event-stream' },
  { mode: 'JSON answers', enableJsonResponse: true, contentType: 'application/json' },
])('HTTP client against the SDK server ($mode)', ({ enableJsonResponse, contentType }) => {
  let server: SdkHttpServer;
  let contentTypes: string[];

  beforeAll(async () => {
    server = await startSdkHttpServer({ enableJsonResponse });
  });
  afterAll(() => server.close());

  const open = (timeoutMs?: number) => {
    contentTypes = [];
    const transport = new HttpClientTransport(server.url, { fetch: recordingFetch(contentTypes) });
    const client = new McpClient(transport, timeoutMs === undefined ? {} : { timeoutMs });
    clients.push(client);
    return { client, transport };
  };

  it('initializes, then sends the session id and the negotiated version on every later request', async () => {
    const { client, transport } = open();
    const before = server.seen.length;
    const info = await client.connect();
    expect(info.serverInfo.name).toBe('sdk-http');
    expect(client.serverInfo?.name).toBe('sdk-http');
    expect(client.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    await client.callTool('echo', { text: 'hi' });
    const sent = server.seen.slice(before);
    expect(sent.map((request) => request.rpcMethods[0])).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    expect(sent[0]).toMatchObject({ sessionId: undefined, protocolVersion: undefined });
    const initialize = sent[0]?.body as { params: Record<string, unknown> };
    expect(initialize.params).toMatchObject({
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'svckit', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    });
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    for (const request of sent.slice(1)) {
      expect(request).toMatchObject({
        sessionId: transport.sessionId,
        protocolVersion: LATEST_PROTOCOL_VERSION,
      });
    }
    // The answers to initialize and tools/call came in the mode under test (202s for the notification).
    expect(contentTypes.filter((type) => type !== '')).toEqual([contentType, contentType]);
  });

  it('lists tools and calls one', async () => {
    const { client } = open();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'fail', 'sleep', 'pid', 'env', 'big']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    const result = await client.callTool('echo', { text: 'hello' });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe('hello');
  });

  it('resolves a tool result with isError: true (the tool ran and failed)', async () => {
    const { client } = open();
    const result = await client.callTool('fail');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('it failed');
  });

  it('resolves an unknown tool as the SDK reports it: an isError result, not a JSON-RPC error', async () => {
    const { client } = open();
    const result = await client.callTool('no-such-tool', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('no-such-tool not found');
  });

  it('times out after timeoutMs with MCP_CLIENT_TIMEOUT and cancels the call on the server', async () => {
    const { client } = open(200);
    await client.connect();
    const started = Date.now();
    const aborted = server.nextAbort();
    await expect(client.callTool('sleep', { ms: 10_000 })).rejects.toMatchObject({
      code: 'MCP_CLIENT_TIMEOUT',
      status: 504,
      details: { method: 'tools/call', timeoutMs: 200 },
    });
    expect(Date.now() - started).toBeLessThan(2000);
    // The SDK aborted the tool's signal because notifications/cancelled named this request.
    const requestId = await aborted;
    const cancel = server.seen.find((request) => request.rpcMethods[0] === 'notifications/cancelled');
    expect(cancel?.body).toMatchObject({ params: { requestId, reason: expect.stringContaining('200 ms') } });
  });

  it('an aborted signal cancels the call on the server and rejects with the signal reason', async () => {
    const { client } = open();
    await client.connect();
    const controller = new AbortController();
    const aborted = server.nextAbort();
    const call = client.callTool('sleep', { ms: 10_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 100);
    await expect(call).rejects.toThrow('user gave up');
    await aborted;
    // An already aborted signal sends nothing at all.
    const count = server.seen.length;
    await expect(client.callTool('echo', { text: 'x' }, { signal: controller.signal })).rejects.toThrow(
      'user gave up',
    );
    expect(server.seen.length).toBe(count);
  });
});

describe('HTTP client against the SDK server: sessions, errors, close', () => {
  let server: SdkHttpServer;
  beforeAll(async () => {
    server = await startSdkHttpServer();
  });
  afterAll(() => server.close());
  afterEach(() => {
    server.rejectToolCalls = false;
  });

  const open = (timeoutMs?: number) => {
    const transport = new HttpClientTransport(server.url);
    const client = new McpClient(transport, timeoutMs === undefined ? {} : { timeoutMs });
    clients.push(client);
    return { client, transport };
  };

  it('concurrent first calls share one implicit initialize', async () => {
    const { client } = open();
    const initializes = server.rpcCount('initialize');
    const results = await Promise.all([
      client.callTool('echo', { text: 'a' }),
      client.callTool('echo', { text: 'b' }),
      client.listTools(),
    ]);
    expect(results).toHaveLength(3);
    expect(server.rpcCount('initialize')).toBe(initializes + 1);
  });

  it('a forgotten session (404) opens a new session and retries the request once, transparently', async () => {
    const { client, transport } = open();
    await client.callTool('echo', { text: 'first' });
    const oldSession = transport.sessionId;
    await server.forgetSessions();
    const initializes = server.rpcCount('initialize');
    const result = await client.callTool('echo', { text: 'second' });
    expect(textOf(result)).toBe('second');
    expect(server.rpcCount('initialize')).toBe(initializes + 1);
    expect(transport.sessionId).not.toBe(oldSession);
    const calls = server.seen.filter((request) => request.rpcMethods[0] === 'tools/call').slice(-2);
    expect(calls.map((request) => [request.sessionId, request.answered])).toEqual([
      [oldSession, 404],
      [transport.sessionId, undefined],
    ]);
  });

  it('a second 404 is not retried again: the call fails with MCP_SERVER_FAILED status 404', async () => {
    const { client } = open();
    await client.connect();
    server.rejectToolCalls = true;
    const calls = server.rpcCount('tools/call');
    const initializes = server.rpcCount('initialize');
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { status: 404, sessionExpired: true },
    });
    expect(server.rpcCount('tools/call')).toBe(calls + 2);
    expect(server.rpcCount('initialize')).toBe(initializes + 1);
    // The next call starts over (new session) rather than staying broken.
    server.rejectToolCalls = false;
    expect(textOf(await client.callTool('echo', { text: 'back' }))).toBe('back');
  });

  it('maps a JSON-RPC error answer to MCP_SERVER_FAILED with rpcCode and rpcMessage', async () => {
    const bare = await startSdkHttpServer({ noTools: true });
    try {
      const client = new McpClient(new HttpClientTransport(bare.url));
      clients.push(client);
      await expect(client.listTools()).rejects.toMatchObject({
        code: 'MCP_SERVER_FAILED',
        details: { method: 'tools/list', rpcCode: -32601, rpcMessage: expect.stringContaining('not found') },
      });
    } finally {
      await bare.close();
    }
  });

  it('close() ends the session with DELETE; calls in flight and later reject MCP_CLIENT_CLOSED', async () => {
    const { client, transport } = open();
    await client.connect();
    const sessionId = transport.sessionId;
    expect(server.liveSessions()).toContain(sessionId);
    const inFlight = expect(client.callTool('sleep', { ms: 10_000 })).rejects.toMatchObject({
      code: 'MCP_CLIENT_CLOSED',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.close();
    await inFlight;
    const deletes = server.seen.filter((request) => request.httpMethod === 'DELETE');
    expect(deletes.at(-1)?.sessionId).toBe(sessionId);
    expect(server.liveSessions()).not.toContain(sessionId);
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: 'MCP_CLIENT_CLOSED' });
    await expect(client.connect()).rejects.toMatchObject({ code: 'MCP_CLIENT_CLOSED' });
    await client.close(); // idempotent
  });
});
