// McpClient + HttpClientTransport against a hand-written endpoint, for answers the official SDK never gives:
// paged listings, JSON-RPC errors, unsupported versions, HTTP errors, event streams with server messages,
// bodies without an answer, and an unreachable server.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClientTransport, McpClient } from '../../../runtime/mcp/client/index.js';
import {
  handshakeThen,
  initializeResult,
  json,
  startHandServer,
  type HandServer,
} from './fixtures/hand-server.js';

let server: HandServer;
const clients: McpClient[] = [];

beforeAll(async () => {
  server = await startHandServer();
});
afterAll(() => server.close());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  server.seen.length = 0;
});

function open(options: { headers?: Record<string, string> } = {}): McpClient {
  const client = new McpClient(new HttpClientTransport(server.url, options), { timeoutMs: 2000 });
  clients.push(client);
  return client;
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
const rpcMethods = () => server.seen.map((request) => request.body?.method);

describe('HttpClientTransport against a hand-written server', () => {
  it('listTools follows nextCursor across pages', async () => {
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      first: { tools: [tool('a'), tool('b')], nextCursor: 'p2' },
      p2: { tools: [tool('c')], nextCursor: 'p3' },
      p3: { tools: [tool('d')] },
    };
    server.handle(
      handshakeThen(({ body }, response) => {
        const params = body?.params as { cursor?: string } | undefined;
        json(response, { jsonrpc: '2.0', id: body?.id, result: pages[params?.cursor ?? 'first'] });
      }),
    );
    const tools = await open().listTools();
    expect(tools.map((entry) => entry.name)).toEqual(['a', 'b', 'c', 'd']);
    const cursors = server.seen
      .filter((request) => request.body?.method === 'tools/list')
      .map((request) => (request.body?.params as { cursor?: string }).cursor);
    expect(cursors).toEqual([undefined, 'p2', 'p3']);
  });

  it('a repeated cursor fails instead of listing forever', async () => {
    server.handle(
      handshakeThen(({ body }, response) =>
        json(response, { jsonrpc: '2.0', id: body?.id, result: { tools: [tool('a')], nextCursor: 'again' } }),
      ),
    );
    await expect(open().listTools()).rejects.toMatchObject({ code: 'MCP_SERVER_FAILED' });
    expect(rpcMethods().filter((method) => method === 'tools/list')).toHaveLength(2);
  });

  it('a JSON-RPC error answer rejects with MCP_SERVER_FAILED { rpcCode, rpcMessage }', async () => {
    server.handle(
      handshakeThen(({ body }, response) =>
        json(response, { jsonrpc: '2.0', id: body?.id, error: { code: -32602, message: 'Bad arguments' } }),
      ),
    );
    await expect(open().callTool('x', { a: 1 })).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      status: 502,
      details: { method: 'tools/call', rpcCode: -32602, rpcMessage: 'Bad arguments' },
    });
  });

  it('refuses a protocol version svc does not speak, before notifications/initialized', async () => {
    server.handle(({ body }, response) => json(response, initializeResult(body?.id, '1999-01-01')));
    await expect(open().connect()).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { protocolVersion: '1999-01-01' },
    });
    expect(rpcMethods()).toEqual(['initialize']);
  });

  it('an unanswered initialize times out with MCP_CLIENT_TIMEOUT and is never cancelled', async () => {
    server.handle(() => undefined); // never answers
    const client = new McpClient(new HttpClientTransport(server.url), { timeoutMs: 150 });
    clients.push(client);
    await expect(client.connect()).rejects.toMatchObject({
      code: 'MCP_CLIENT_TIMEOUT',
      details: { method: 'initialize', timeoutMs: 150 },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rpcMethods()).toEqual(['initialize']);
  });

  it('accepts an older supported version, sends it as MCP-Protocol-Version, and user headers under the protocol ones', async () => {
    server.handle((request, response) => {
      if (request.body?.method === 'initialize')
        return json(response, initializeResult(request.body.id, '2025-03-26'));
      if (!('id' in (request.body ?? {}))) return void response.writeHead(202).end();
      json(response, { jsonrpc: '2.0', id: request.body?.id, result: { tools: [] } });
    });
    const client = open({ headers: { authorization: 'Bearer t0ken', 'Content-Type': 'text/plain' } });
    await client.listTools();
    expect(client.protocolVersion).toBe('2025-03-26');
    const [initialize, initialized, list] = server.seen;
    expect(initialize?.headers['mcp-protocol-version']).toBeUndefined();
    expect(initialize?.headers).toMatchObject({
      authorization: 'Bearer t0ken',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
    for (const request of [initialized, list]) {
      expect(request?.headers).toMatchObject({
        authorization: 'Bearer t0ken',
        'mcp-protocol-version': '2025-03-26',
      });
      // A stateless server gave no session id, so none is sent.
      expect(request?.headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('an HTTP error rejects with MCP_SERVER_FAILED { status, body: the first KiB }', async () => {
    server.handle(
      handshakeThen((_request, response) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end('e'.repeat(3000));
      }),
    );
    const error = await open()
      .callTool('x')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MCP_SERVER_FAILED', details: { status: 500 } });
    expect((error as { details: { body: string } }).details.body).toBe('e'.repeat(1024));
  });

  it('a 404 to a request without a session id is an error, not a session to renew', async () => {
    server.handle(
      handshakeThen((_request, response) => {
        response.writeHead(404).end('gone');
      }),
    );
    await expect(open().callTool('x')).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { status: 404, body: 'gone' },
    });
    expect(rpcMethods()).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
  });

  it('reads an event stream: skips notifications and non-JSON, answers a ping, copes with CRLF and split chunks', async () => {
    server.handle(
      handshakeThen(async ({ body }, response) => {
        if (!body || body.method !== 'tools/call') return void response.writeHead(202).end();
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(': a comment\r\n\r\n');
        response.write(
          'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\r\n\r\n',
        );
        response.write('data: {"jsonrpc":"2.0","id":"srv-1","method":"ping"}\n\n');
        response.write('data: not json\n\n');
        response.write(
          'data: {"jsonrpc":"2.0","id":"srv-2","method":"sampling/createMessage","params":{}}\n\n',
        );
        const answer = JSON.stringify({
          jsonrpc: '2.0',
          id: body.id,
          result: { content: [{ type: 'text', text: 'ok' }] },
        });
        response.write(`data: ${answer.slice(0, 10)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        response.write(`${answer.slice(10)}\r`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        response.write('\n\r\n');
        // The stream stays open: the client must stop reading (and drop the connection) once its answer arrived.
        response.on('close', () => (streamDropped = true));
      }),
    );
    let streamDropped = false;
    const result = await open().callTool('x');
    await expect.poll(() => streamDropped).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    await expect
      .poll(() => server.seen.find((request) => request.body?.id === 'srv-1')?.body)
      .toEqual({
        jsonrpc: '2.0',
        id: 'srv-1',
        result: {},
      });
    await expect
      .poll(() => server.seen.find((request) => request.body?.id === 'srv-2')?.body)
      .toMatchObject({ jsonrpc: '2.0', id: 'srv-2', error: { code: -32601 } });
  });

  it('a response that ends without the answer rejects with MCP_SERVER_FAILED', async () => {
    server.handle(
      handshakeThen((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end('data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n');
      }),
    );
    await expect(open().callTool('x')).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { status: 200 },
    });
  });

  it('a body that is not JSON-RPC rejects with MCP_SERVER_FAILED', async () => {
    server.handle(handshakeThen((_request, response) => json(response, { hello: 'world' })));
    await expect(open().callTool('x')).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { status: 200 },
    });
    server.handle(
      handshakeThen((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{broken');
      }),
    );
    await expect(open().callTool('x')).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { body: '{broken' },
    });
  });

  it('an unreachable server rejects with MCP_SERVER_FAILED carrying the network error as cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = new McpClient(new HttpClientTransport(`http://127.0.0.1:${port}/mcp`));
    clients.push(client);
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MCP_SERVER_FAILED', details: { reason: 'unreachable' } });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('close() without a session sends no DELETE, and tolerates a 405 to one', async () => {
    server.handle(
      handshakeThen(({ body }, response) =>
        json(response, { jsonrpc: '2.0', id: body?.id, result: { tools: [] } }),
      ),
    );
    const client = open();
    await client.listTools();
    await client.close();
    expect(server.seen.map((request) => request.httpMethod)).not.toContain('DELETE');

    server.handle((request, response) => {
      if (request.httpMethod === 'DELETE') return void response.writeHead(405).end();
      if (request.body?.method === 'initialize')
        return json(response, initializeResult(request.body.id), { 'mcp-session-id': 'sess-1' });
      if (!('id' in (request.body ?? {}))) return void response.writeHead(202).end();
      json(response, { jsonrpc: '2.0', id: request.body?.id, result: { tools: [] } });
    });
    const stateful = open();
    await stateful.listTools();
    await expect(stateful.close()).resolves.toBeUndefined();
    const deleted = server.seen.find((request) => request.httpMethod === 'DELETE');
    expect(deleted?.headers['mcp-session-id']).toBe('sess-1');
  });

  it('rejects bad constructor arguments with a TypeError naming the option', () => {
    expect(() => new HttpClientTransport('ftp://example.com')).toThrow(
      /url must be an absolute http\(s\) URL/,
    );
    expect(() => new HttpClientTransport('not a url')).toThrow(TypeError);
    expect(() => new HttpClientTransport(server.url, { headers: { a: 1 as unknown as string } })).toThrow(
      /headers\.a/,
    );
    expect(() => new McpClient(new HttpClientTransport(server.url), { timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
