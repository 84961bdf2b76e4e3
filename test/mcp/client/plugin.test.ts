// mcpClientPlugin on a real app kernel: two named servers (official-SDK HTTP and stdio) connected at boot,
// the registry in the container, unknown names, a server that cannot connect refusing boot, and app.close().
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../runtime/app/app.js';
import {
  MCP_CLIENTS,
  StdioClientTransport,
  mcpClientPlugin,
  mcpClients,
  type McpClientPluginOptions,
} from '../../../runtime/mcp/client/index.js';
import { startSdkHttpServer, type SdkHttpServer } from './fixtures/sdk-http-server.js';
import { fixtureServer, isAlive } from './fixtures/stdio-params.js';

let http: SdkHttpServer;
const scratch = mkdtempSync(join(tmpdir(), 'svc-mcp-plugin-'));

beforeAll(async () => {
  http = await startSdkHttpServer();
});
afterAll(async () => {
  await http.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const stdioServer = (pidFile: string) => ({
  type: 'stdio' as const,
  ...fixtureServer({ env: { PID_FILE: pidFile } }),
});

describe('mcpClientPlugin', () => {
  it('connects every server at boot and calls tools on each by name; app.close() closes them', async () => {
    const pidFile = join(scratch, 'ok.pid');
    const plugin = mcpClientPlugin({
      servers: { remote: { type: 'http', url: http.url }, local: stdioServer(pidFile) },
      timeoutMs: 10_000,
    });
    const app = createApp({ name: 'test' }).register(plugin);
    const initializes = http.rpcCount('initialize');
    try {
      await app.boot();
      // Connected at boot, before any call.
      expect(http.rpcCount('initialize')).toBe(initializes + 1);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(isAlive(pid)).toBe(true);

      const registry = mcpClients(app.container.createScope());
      expect(registry).toBe(app.container.get(MCP_CLIENTS));
      expect(registry).toBe(plugin.registry);
      expect(registry.names).toEqual(['remote', 'local']);
      expect((await registry.callTool('remote', 'echo', { text: 'over http' })).content).toEqual([
        { type: 'text', text: 'over http' },
      ]);
      expect((await registry.callTool('local', 'pid')).content).toEqual([
        { type: 'text', text: String(pid) },
      ]);
      expect((await registry.listTools('local')).map((tool) => tool.name)).toContain('exit');
      expect(registry.client('remote').serverInfo?.name).toBe('sdk-http');

      await expect(registry.callTool('nowhere', 'echo')).rejects.toMatchObject({
        code: 'MCP_SERVER_UNKNOWN',
        details: { server: 'nowhere' },
      });
      await expect(registry.listTools('nowhere')).rejects.toMatchObject({ code: 'MCP_SERVER_UNKNOWN' });
      expect(() => registry.client('nowhere')).toThrow(
        expect.objectContaining({ code: 'MCP_SERVER_UNKNOWN' }),
      );

      const sessions = http.liveSessions().length;
      await app.close();
      expect(isAlive(pid)).toBe(false);
      expect(http.liveSessions()).toHaveLength(sessions - 1);
      await expect(registry.callTool('remote', 'echo', { text: 'x' })).rejects.toMatchObject({
        code: 'MCP_CLIENT_CLOSED',
      });
    } finally {
      await app.close();
    }
  });

  it('a server that cannot connect refuses boot with an error naming it, and stops the others', async () => {
    const pidFile = join(scratch, 'refused.pid');
    const port = await closedPort();
    const app = createApp({ name: 'test' }).register(
      mcpClientPlugin({
        servers: { good: stdioServer(pidFile), down: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } },
      }),
    );
    const error = await app.boot().catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'MCP_SERVER_FAILED',
      details: { server: 'down', reason: 'unreachable' },
    });
    expect((error as Error).message).toContain('"down"');
    // The stdio server that did start is not left running.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(false);
    await app.close();
  });

  it('a stdio server whose command is missing refuses boot with MCP_SERVER_EXITED naming it', async () => {
    const app = createApp({ name: 'test' }).register(
      mcpClientPlugin({ servers: { ghost: { type: 'stdio', command: join(scratch, 'missing-binary') } } }),
    );
    await expect(app.boot()).rejects.toMatchObject({
      code: 'MCP_SERVER_EXITED',
      details: { server: 'ghost', spawnError: 'ENOENT' },
      message: expect.stringContaining('"ghost"'),
    });
    await app.close();
  });

  it('mcpClients() explains a missing plugin', () => {
    expect(() => mcpClients(createApp().container)).toThrow(/no mcpClientPlugin\(\) is registered/);
  });

  it('builds the transport each server config names', () => {
    const plugin = mcpClientPlugin({ servers: { local: { type: 'stdio', command: 'true', args: ['x'] } } });
    expect(plugin.name).toBe('svc:mcp-client');
    expect(plugin.registry.client('local').transport).toBeInstanceOf(StdioClientTransport);
  });

  it.each([
    [undefined, /options must be an object/],
    [{}, /servers must be an object/],
    [{ servers: {}, extra: 1 }, /unknown option "extra"/],
    [{ servers: {}, timeoutMs: 0 }, /timeoutMs/],
    [{ servers: { a: { type: 'ws', url: 'ws://x' } } }, /servers\.a\.type must be "http" or "stdio"/],
    [{ servers: { a: { type: 'http' } } }, /servers\.a\.url/],
    [{ servers: { a: { type: 'http', url: 'file:///x' } } }, /servers\.a\.url/],
    [{ servers: { a: { type: 'http', url: 'http://x', headers: { h: 1 } } } }, /servers\.a\.headers/],
    [
      { servers: { a: { type: 'http', url: 'http://x', command: 'y' } } },
      /servers\.a: unknown option "command"/,
    ],
    [{ servers: { a: { type: 'stdio' } } }, /servers\.a: command/],
    [{ servers: { a: { type: 'stdio', command: 'x', inheritEnv: 'PATH' } } }, /servers\.a: inheritEnv/],
  ])('rejects bad options with a TypeError naming the option (%j)', (options, message) => {
    expect(() => mcpClientPlugin(options as unknown as McpClientPluginOptions)).toThrow(TypeError);
    expect(() => mcpClientPlugin(options as unknown as McpClientPluginOptions)).toThrow(message);
  });
});
