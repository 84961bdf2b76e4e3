// McpClient over a hand-written in-memory ClientTransport: the transport contract as a third-party transport
// sees it (start/send/onmessage/onclose/setProtocolVersion, sessionExpired), without any wire.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errors } from '../../../generated/modules/errors.js';
import {
  McpClient,
  isSessionExpired,
  sessionExpired,
  type ClientTransport,
} from '../../../runtime/mcp/client/index.js';
import type { JsonRpcMessage } from '../../../runtime/mcp/protocol/json-rpc.js';
import type { ProtocolVersion } from '../../../runtime/mcp/protocol/versions.js';
import type { SvcError } from '../../../runtime/http/errors.js';

type Answer = JsonRpcMessage | Error | 'throw-sync' | undefined;

/** Answers each request through `answer`, asynchronously, as a real transport would. */
class MemoryTransport implements ClientTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: (error: SvcError) => void;
  starts = 0;
  closed = 0;
  versions: ProtocolVersion[] = [];
  sent: JsonRpcMessage[] = [];

  constructor(
    private readonly answer: (message: JsonRpcMessage & { id?: unknown; method?: string }) => Answer,
  ) {}

  async start(): Promise<void> {
    this.starts++;
  }

  send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
    const answer = this.answer(message);
    if (answer === 'throw-sync') throw new Error('synchronous failure');
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer) setTimeout(() => this.onmessage?.(answer), 1);
    return Promise.resolve();
  }

  setProtocolVersion(version: ProtocolVersion): void {
    this.versions.push(version);
  }

  async close(): Promise<void> {
    this.closed++;
  }

  methods(): (string | undefined)[] {
    return this.sent.map((message) => ('method' in message ? message.method : undefined));
  }
}

const initialized = (id: unknown, version = '2025-06-18'): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id: id as number,
  result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 'memory', version: '1' } },
});

/** A server that completes the handshake and answers tools/call with `onCall`. */
function server(onCall: (id: number, name: string) => Answer) {
  return (message: JsonRpcMessage & { id?: unknown; method?: string }): Answer => {
    if (message.method === 'initialize') return initialized(message.id);
    if (message.method === 'tools/call') {
      const params = (message as unknown as { params: { name: string } }).params;
      return onCall(message.id as number, params.name);
    }
    return undefined;
  };
}

const ok = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: { content: [] } });

describe('McpClient over a custom transport', () => {
  it('sends clientInfo, tells the transport the negotiated version, and calls', async () => {
    const transport = new MemoryTransport(server((id) => ok(id)));
    const client = new McpClient(transport, { clientInfo: { name: 'my-app', version: '2.0.0' } });
    await client.callTool('t', { a: 1 });
    expect(transport.versions).toEqual(['2025-06-18']);
    expect(transport.sent[0]).toMatchObject({
      method: 'initialize',
      params: { clientInfo: { name: 'my-app', version: '2.0.0' } },
    });
    expect(transport.sent[2]).toMatchObject({
      method: 'tools/call',
      params: { name: 't', arguments: { a: 1 } },
    });
    expect(client.protocolVersion).toBe('2025-06-18');
  });

  it('introduces itself as svckit with the installed version when no clientInfo is given', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const transport = new MemoryTransport(server((id) => ok(id)));
    await new McpClient(transport).callTool('t', {});
    expect(transport.sent[0]).toMatchObject({
      method: 'initialize',
      params: { clientInfo: { name: 'svckit', version: manifest.version } },
    });
  });

  it('onclose rejects the calls in flight with its error; the next call starts and initializes again', async () => {
    const transport = new MemoryTransport(server(() => undefined));
    const client = new McpClient(transport, { timeoutMs: 5000 });
    await client.connect();
    const inFlight = client.callTool('slow');
    await new Promise((resolve) => setTimeout(resolve, 5));
    transport.onclose?.(errors.MCP_SERVER_EXITED({ details: { exitCode: 1, signal: null } }));
    await expect(inFlight).rejects.toMatchObject({ code: 'MCP_SERVER_EXITED', details: { exitCode: 1 } });
    expect(transport.starts).toBe(1);
    const next = client.callTool('slow');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(transport.starts).toBe(2);
    expect(transport.methods().filter((method) => method === 'initialize')).toHaveLength(2);
    await client.close();
    await expect(next).rejects.toMatchObject({ code: 'MCP_CLIENT_CLOSED' });
    expect(transport.closed).toBe(1);
  });

  it('sessionExpired() from send reopens the session and retries once', async () => {
    let expire = 1;
    const transport = new MemoryTransport(
      server((id) => (expire-- > 0 ? sessionExpired({ status: 404 }) : ok(id))),
    );
    const client = new McpClient(transport);
    await client.connect();
    await expect(client.callTool('t')).resolves.toMatchObject({ content: [] });
    expect(transport.methods()).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    expect(isSessionExpired(sessionExpired())).toBe(true);
    expect(isSessionExpired(errors.MCP_SERVER_FAILED())).toBe(false);
  });

  it('a transport failing with a plain Error, even synchronously, rejects with MCP_SERVER_FAILED', async () => {
    const plain = new MemoryTransport(server(() => new Error('socket exploded')));
    const error = await new McpClient(plain).callTool('t').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MCP_SERVER_FAILED', cause: { message: 'socket exploded' } });
    const sync = new MemoryTransport(server(() => 'throw-sync'));
    await expect(new McpClient(sync).callTool('t')).rejects.toMatchObject({ code: 'MCP_SERVER_FAILED' });
  });

  it('a timeout sends notifications/cancelled for that id; a late answer is ignored', async () => {
    let callId = 0;
    const transport = new MemoryTransport(
      server((id) => {
        callId = id;
        return undefined;
      }),
    );
    const client = new McpClient(transport, { timeoutMs: 50 });
    await client.connect();
    await expect(client.callTool('slow')).rejects.toMatchObject({ code: 'MCP_CLIENT_TIMEOUT' });
    expect(transport.sent.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: callId, reason: 'Timed out after 50 ms.' },
    });
    transport.onmessage?.(ok(callId)); // too late: nothing waits for it, nothing throws
  });

  it('refuses a transport that is not one', () => {
    expect(() => new McpClient({} as ClientTransport)).toThrow(TypeError);
  });
});
