// The MCP defaults svckit documents, pinned by behaviour: a tool client waits 60000 ms for an answer, a
// tool session lives 30 minutes idle and 1000 are kept (the least recently used evicted beyond that); and
// svc's own default that one caller keeps 16 (the batch cap of 32 is pinned in test/http/mcp-batches).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClient, type ClientTransport, type JsonRpcMessage } from 'svckit';
import { SessionTable } from '../../runtime/mcp/server/sessions.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A transport whose server never answers. */
class SilentTransport implements ClientTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  readonly sent: JsonRpcMessage[] = [];
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('documented MCP defaults', () => {
  it('a tool client request times out after 60000 ms by default', async () => {
    vi.useFakeTimers();
    const client = new McpClient(new SilentTransport());
    let outcome: unknown;
    const connecting = client.connect().catch((error: unknown) => (outcome = error));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await connecting;
    expect(outcome).toMatchObject({ code: 'MCP_CLIENT_TIMEOUT' });
  });

  it('a tool session is gone after 30 minutes idle, and use keeps it alive', async () => {
    vi.useFakeTimers();
    const sessions = new SessionTable();
    const caller = { key: 'caller', owner: 'caller' };
    const kept = await sessions.open(caller, '2025-11-25');
    const idle = await sessions.open(caller, '2025-11-25');
    await vi.advanceTimersByTimeAsync(30 * 60 * 1000 - 1);
    expect(await sessions.use(kept.id, 'caller')).toBeDefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await sessions.use(idle.id, 'caller')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(30 * 60 * 1000 - 2);
    expect(await sessions.use(kept.id, 'caller')).toBeDefined();
  });

  it('1000 live sessions are kept; the 1001st evicts the least recently used', async () => {
    const sessions = new SessionTable();
    // One session per owner: the per-caller cap (16) stays out of the way.
    const caller = (i: number) => ({ key: 'caller', owner: `owner-${i}` });
    const opened = [];
    for (let i = 0; i < 1000; i++) opened.push(await sessions.open(caller(i), '2025-11-25'));
    // Touching the first makes the second the least recently used.
    expect(await sessions.use(opened[0]!.id, 'caller')).toBeDefined();
    await sessions.open(caller(1000), '2025-11-25');
    expect(await sessions.use(opened[1]!.id, 'caller')).toBeUndefined();
    expect(await sessions.use(opened[0]!.id, 'caller')).toBeDefined();
    expect(await sessions.use(opened[2]!.id, 'caller')).toBeDefined();
  });

  it('one caller keeps 16 live sessions; the 17th evicts its least recently used', async () => {
    const sessions = new SessionTable();
    const caller = { key: 'caller', owner: 'ip' };
    const opened = [];
    for (let i = 0; i < 17; i++) opened.push(await sessions.open(caller, '2025-11-25'));
    expect(await sessions.use(opened[0]!.id, 'caller')).toBeUndefined();
    for (const session of opened.slice(1)) expect(await sessions.use(session.id, 'caller')).toBeDefined();
  });
});
