// modules.mcp in svc.config.yaml (docs/mcp.md "Turning it on"): true enables the endpoint with its defaults,
// a mapping passes the endpoint's and the plugin's options, anything else refuses to boot with CONFIG_INVALID.
import { describe, expect, it } from 'vitest';
import { createApp, mcpModule, route, type App } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

const tool = route({ method: 'GET', url: '/ping', meta: { mcp: true }, handler: () => ({ ok: true }) });

async function serve(setting: unknown): Promise<{ app: App; url: string }> {
  const app = createApp({ name: 'cfg', version: '9.9.9' });
  for (const plugin of mcpModule(setting)) app.register(plugin);
  app.register(fastifyPlugin({ onError: false, routes: [tool] }));
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id'),
    text: await response.text(),
  };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('mcpModule', () => {
  it('is off for false or nothing', () => {
    expect(mcpModule(undefined)).toEqual([]);
    expect(mcpModule(false)).toEqual([]);
  });

  it('true serves /mcp with sessions and the app as serverInfo, and prints the endpoint', async () => {
    const { app, url } = await serve(true);
    try {
      const answer = await post(`${url}/mcp`, initialize);
      expect(answer.status).toBe(200);
      expect(answer.session).toEqual(expect.any(String));
      expect(JSON.parse(answer.text)).toMatchObject({
        result: { serverInfo: { name: 'cfg', version: '9.9.9' } },
      });
      expect(app.metadata.list('app:urls')).toContainEqual({ label: 'MCP', path: '/mcp' });
    } finally {
      await app.close();
    }
  });

  it('a mapping sets the path, stateless sessions and the instructions', async () => {
    const { app, url } = await serve({ path: '/agents', sessions: false, instructions: 'Be brief.' });
    try {
      const answer = await post(`${url}/agents`, initialize);
      expect(answer.session).toBeNull();
      expect(JSON.parse(answer.text)).toMatchObject({ result: { instructions: 'Be brief.' } });
      expect((await post(`${url}/mcp`, initialize)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('refuses unknown options and bad values with CONFIG_INVALID naming modules.mcp', () => {
    expect(() => mcpModule({ sesions: false })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('modules.mcp') }),
    );
    expect(() => mcpModule({ path: 'mcp' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => mcpModule({ sessions: { ttlMs: 0 } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => mcpModule({ forwardHeaders: 'x-a' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => mcpModule('yes')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
