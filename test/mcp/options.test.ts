// The MCP options objects refuse keys they do not know when they are read (at start), naming the key, a
// likely intended one and the keys they take, in the one wording runtime/config/known-options.ts gives every
// options object; and `mcpPlugin({ routes })` selects which `meta.mcp` routes become tools.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  HttpClientTransport,
  McpClient,
  mcpClientPlugin,
  mcpModule,
  mcpPlugin,
  mcpRoutes,
  mcpService,
  route,
  serveMcpStdio,
  StdioClientTransport,
  type App,
  type McpPluginOptions,
} from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

let apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.map((app) => app.close()));
  apps = [];
});

/** Calls `make` with a misspelt key smuggled past the types, as a JavaScript caller or a YAML file would. */
const loose = <T>(value: Record<string, unknown>): T => value as T;

describe('unknown MCP options refuse to start, naming the key', () => {
  it.each([
    [
      'mcpPlugin',
      () => mcpPlugin(loose({ tols: {} })),
      /^mcpPlugin: unknown option "tols" \(did you mean "tools"\?\); it takes routes, tools, serverInfo/,
    ],
    [
      'mcpPlugin serverInfo',
      () => mcpPlugin({ serverInfo: loose({ name: 'a', version: '1', verison: '2' }) }),
      /^mcpPlugin: serverInfo: unknown option "verison" \(did you mean "version"\?\)/,
    ],
    [
      'mcpRoutes',
      () => mcpRoutes(loose({ sesions: false })),
      /^mcpRoutes: unknown option "sesions" \(did you mean "sessions"\?\)/,
    ],
    [
      'mcpRoutes sessions',
      () => mcpRoutes({ sessions: loose({ maxPerCallr: 2 }) }),
      /^mcpRoutes: sessions: unknown option "maxPerCallr" \(did you mean "maxPerCaller"\?\)/,
    ],
    [
      'mcpRoutes rateLimit',
      () => mcpRoutes({ rateLimit: loose({ limit: 1, windowMs: 1000, key: 'user' }) }),
      /^mcpRoutes: rateLimit: unknown option "key"; it takes limit, windowMs\./,
    ],
    [
      'McpClient',
      () => new McpClient(new HttpClientTransport('http://127.0.0.1:1/mcp'), loose({ timeout: 5 })),
      /^McpClient: unknown option "timeout" \(did you mean "timeoutMs"\?\)/,
    ],
    [
      'McpClient clientInfo',
      () =>
        new McpClient(new HttpClientTransport('http://127.0.0.1:1/mcp'), {
          clientInfo: loose({ name: 'a', version: '1', vendor: 'x' }),
        }),
      /^McpClient: clientInfo: unknown option "vendor"/,
    ],
    [
      'HttpClientTransport',
      () => new HttpClientTransport('http://127.0.0.1:1/mcp', loose({ header: {} })),
      /^HttpClientTransport: unknown option "header" \(did you mean "headers"\?\)/,
    ],
    [
      'StdioClientTransport',
      () => new StdioClientTransport(loose({ command: 'node', argz: [] })),
      /^StdioClientTransport: unknown option "argz" \(did you mean "args"\?\)/,
    ],
    [
      'mcpClientPlugin',
      () => mcpClientPlugin(loose({ server: {} })),
      /^mcpClientPlugin\(\): unknown option "server" \(did you mean "servers"\?\)/,
    ],
    [
      'mcpClientPlugin http server',
      () => mcpClientPlugin({ servers: { a: loose({ type: 'http', url: 'http://x/mcp', headrs: {} }) } }),
      /^mcpClientPlugin\(\): servers\.a: unknown option "headrs" \(did you mean "headers"\?\)/,
    ],
  ])('%s', (_name, make, message) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(message);
  });

  it('serveMcpStdio', async () => {
    const app = createApp();
    app.register(mcpPlugin());
    apps.push(app);
    const stdio = serveMcpStdio(
      app,
      loose({ input: new PassThrough(), output: new PassThrough(), maxBatchSiz: 2 }),
    );
    await expect(stdio).rejects.toThrow(
      /^serveMcpStdio: unknown option "maxBatchSiz" \(did you mean "maxBatchSize"\?\)/,
    );
  });

  it('modules.mcp, with CONFIG_INVALID naming the setting and the key', () => {
    expect(() => mcpModule({ sesions: false })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(
          /^modules\.mcp: unknown option "sesions" \(did you mean "sessions"\?\)/,
        ),
      }),
    );
    expect(() => mcpModule({ sessions: { maxPerCallr: 2 } })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining('sessions: unknown option "maxPerCallr"'),
      }),
    );
  });
});

describe('mcpPlugin({ routes })', () => {
  const a = route({ id: 'readA', method: 'GET', url: '/a', meta: { mcp: true }, handler: () => ({}) });
  const b = route({ method: 'GET', url: '/b', meta: { mcp: true }, handler: () => ({}) });
  const c = route({ method: 'GET', url: '/c', handler: () => ({}) });

  async function toolsOf(options: McpPluginOptions): Promise<string[]> {
    const app = createApp();
    apps.push(app);
    app.register(mcpPlugin(options));
    app.register(fastifyPlugin({ onError: false, routes: [a, b, c] }));
    await app.boot();
    return [...(mcpService(app.container)?.server.tools.keys() ?? [])];
  }

  it('defaults to every registered route with meta.mcp', async () => {
    expect(await toolsOf({})).toEqual(['get_a', 'get_b']);
  });

  it('selects tools by route object or route id', async () => {
    expect(await toolsOf({ routes: [b] })).toEqual(['get_b']);
    expect(await toolsOf({ routes: ['readA'] })).toEqual(['get_a']);
    expect(await toolsOf({ routes: [] })).toEqual([]);
  });

  it('selects among the tools of a generated tools document too, keeping their documented names', async () => {
    const tools = {
      tools: [
        { name: 'read_a', route: 'readA', inputSchema: { type: 'object' } },
        { name: 'read_b', route: 'readB', inputSchema: { type: 'object' } },
      ],
    };
    const namedB = route({
      id: 'readB',
      method: 'GET',
      url: '/b2',
      meta: { mcp: true },
      handler: () => ({}),
    });
    const app = createApp();
    apps.push(app);
    app.register(mcpPlugin({ tools, routes: ['readB'] }));
    app.register(fastifyPlugin({ onError: false, routes: [a, namedB, c] }));
    await app.boot();
    expect([...(mcpService(app.container)?.server.tools.keys() ?? [])]).toEqual(['read_b']);
  });

  it('refuses to boot on a route that is not registered or has no meta.mcp (MCP_TOOLS_INVALID)', async () => {
    const stray = route({ method: 'GET', url: '/stray', meta: { mcp: true }, handler: () => ({}) });
    await expect(toolsOf({ routes: [stray, 'nope', c] })).rejects.toMatchObject({
      code: 'MCP_TOOLS_INVALID',
      details: {
        problems: [
          'route GET /stray is not registered with the app',
          'route nope is not registered with the app',
          'route GET /c has no meta.mcp',
        ],
      },
    });
  });

  it('refuses a routes value that is not an array of routes or ids', () => {
    expect(() => mcpPlugin(loose({ routes: 'readA' }))).toThrow(/mcpPlugin: routes must be an array/);
  });
});
