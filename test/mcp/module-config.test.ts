// modules.mcp in svc.config.yaml (docs/mcp.md "Turning it on"): true enables the endpoint with its defaults,
// a mapping passes the endpoint's and the plugin's options, anything else refuses to boot with CONFIG_INVALID.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp, mcpModule, MemoryMcpSessionStore, route, type App, type McpModuleContext } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

const tool = route({ method: 'GET', url: '/ping', meta: { mcp: true }, handler: () => ({ ok: true }) });

async function serve(setting: unknown, context?: McpModuleContext): Promise<{ app: App; url: string }> {
  const app = createApp({ name: 'cfg', version: '9.9.9' });
  for (const plugin of mcpModule(setting, context)) app.register(plugin);
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

  describe('the service secret keys anonymous sessions (sessions.secret)', () => {
    const bearer = { authorization: 'Bearer opaque' };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

    /** Opens an anonymous session on an app made with `first`, then lists on one made with `second`. */
    async function across(first: McpModuleContext, second: McpModuleContext): Promise<number[]> {
      const a = await serve(true, first);
      const b = await serve(true, second);
      try {
        const { session } = await post(`${a.url}/mcp`, initialize, bearer);
        const headers = { ...bearer, 'mcp-session-id': String(session) };
        return [
          (await post(`${a.url}/mcp`, list, headers)).status,
          (await post(`${b.url}/mcp`, list, headers)).status,
        ];
      } finally {
        await Promise.all([a.app.close(), b.app.close()]);
      }
    }
    const sharedStore = () => {
      const store = new MemoryMcpSessionStore({ ttlMs: 60_000, maxSessions: 100 });
      return () => store;
    };
    const production = (secret?: string) => ({
      NODE_ENV: 'production',
      ...(secret === undefined ? {} : { SVC_SECRET: secret }),
    });

    it('SVC_SECRET: processes sharing it and the store serve each other’s anonymous sessions', async () => {
      const sessionStore = sharedStore();
      const secret = 's'.repeat(32);
      expect(
        await across({ sessionStore, env: production(secret) }, { sessionStore, env: production(secret) }),
      ).toEqual([200, 200]);
      expect(
        await across(
          { sessionStore, env: production(secret) },
          { sessionStore, env: production('t'.repeat(32)) },
        ),
      ).toEqual([200, 404]);
      // context.secret wins over the environment.
      expect(
        await across(
          { sessionStore, secret, env: production('t'.repeat(32)) },
          { sessionStore, env: production(secret) },
        ),
      ).toEqual([200, 200]);
    });

    it('without a secret in production: sessions work on the process that opened them only', async () => {
      const sessionStore = sharedStore();
      expect(await across({ sessionStore, env: production() }, { sessionStore, env: production() })).toEqual([
        200, 404,
      ]);
    });

    it('in development without SVC_SECRET: the secret kept under .svc/, as the auth module does', async () => {
      const projectDir = mkdtempSync(join(tmpdir(), 'svc-mcp-secret-'));
      try {
        const sessionStore = sharedStore();
        const env = { NODE_ENV: 'development' };
        expect(await across({ sessionStore, env, projectDir }, { sessionStore, env, projectDir })).toEqual([
          200, 200,
        ]);
        expect(existsSync(join(projectDir, '.svc', 'secret'))).toBe(true);
      } finally {
        rmSync(projectDir, { recursive: true, force: true });
      }
    });
  });
});
