// createService(): svc.config.yaml's `modules:` alone serves each module (no wiring code), the app's handlers
// answer the spec's routes, a route without a handler answers 501 outside production and refuses to boot in
// production, and the app overrides module routes one by one, adds plugins and reaches the stores.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  HttpError,
  type App,
  type Plugin,
  type RouteDefinition,
  type SvcConfig,
} from '../../runtime/core.js';
import { collectingLogger } from '../../runtime/log/collecting-logger.js';
import type { MailTransport } from '../../runtime/mail/index.js';
import { createDatabase } from '../backends.js';
import { composeService, type ServiceArtifacts, type ServiceOptions } from '../../runtime/service/index.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const DEV = { NODE_ENV: 'development', SVC_SECRET: SECRET };

const definitions: RouteDefinition[] = [
  { id: 'hello', method: 'GET', url: '/hello', successStatus: 200, meta: {} },
  { id: 'later', method: 'POST', url: '/later', successStatus: 201, meta: {} },
];

function configWith(modules: Record<string, unknown>, database = 'memory'): SvcConfig {
  return {
    name: 'compose-test',
    version: '1.0.0',
    server: { adapter: 'fastify', port: 0, host: '127.0.0.1', entry: 'src/server.ts' },
    stores: { database },
    modules,
  };
}

const artifacts = (config: SvcConfig): ServiceArtifacts => ({
  loadConfig: () => config,
  routeDefinitions: definitions,
  openapi: { openapi: '3.1.0', info: { title: 'compose-test', version: '1.0.0' }, paths: {} },
  mcpTools: { tools: [] },
});

type Handlers = { hello: () => { hi: string } | Promise<{ hi: string }>; later: () => { ok: boolean } };
const handlers: Handlers = { hello: () => ({ hi: 'there' }), later: () => ({ ok: true }) };

/** A project without migrations of its own: the service's database stays in memory maps. */
let projectDir: string;
beforeAll(async () => {
  projectDir = await mkdtemp(join(tmpdir(), 'svc-compose-project-'));
});
afterAll(() => rm(projectDir, { recursive: true, force: true }));

const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function listen(
  config: SvcConfig,
  options: Partial<ServiceOptions<Handlers>> = {},
): Promise<{ app: App; url: string }> {
  const app = await composeService(artifacts(config), {
    handlers,
    env: DEV,
    projectDir,
    logger: collectingLogger(),
    ...options,
  });
  apps.push(app);
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}

const mails = (): { transport: MailTransport; sent: { to: string; subject: string; text: string }[] } => {
  const sent: { to: string; subject: string; text: string }[] = [];
  return { sent, transport: { send: async (message) => void sent.push(message) } };
};

describe('createService()', () => {
  test('every module the spec enables is served without wiring code', async () => {
    const { transport, sent } = mails();
    const { url } = await listen(
      configWith({
        auth: true,
        mail: true,
        edge: { health: true, metrics: true, openapi: true, security: true, tracing: true },
        idempotency: true,
        mcp: true,
      }),
      { modules: { mail: { transport } } },
    );
    const register = await fetch(`${url}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', password: 'a long enough password' }),
    });
    expect(register.status).toBe(201);
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    const initialize = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(initialize.status).toBe(200);
    expect(await (await fetch(`${url}/hello`)).json()).toEqual({ hi: 'there' });
    // The mail module turns auth's events into mail: a reset request is delivered through the transport.
    const forgot = await fetch(`${url}/auth/password/forgot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(forgot.status).toBeLessThan(300);
    await expect.poll(() => sent.length).toBe(1);
    expect(sent[0]?.to).toBe('ada@example.com');
  });

  test('a module left off serves nothing', async () => {
    const { url } = await listen(configWith({}));
    for (const path of ['/auth/register', '/openapi.json', '/metrics', '/mcp']) {
      expect((await fetch(`${url}${path}`, { method: 'POST' })).status, path).toBe(404);
    }
  });

  test('outside production, a route without a handler answers 501 NOT_IMPLEMENTED and the rest still work', async () => {
    const { url } = await listen(configWith({}), { handlers: { hello: handlers.hello } as Handlers });
    const later = await fetch(`${url}/later`, { method: 'POST' });
    expect(later.status).toBe(501);
    expect(((await later.json()) as { error: { code: string } }).error.code).toBe('NOT_IMPLEMENTED');
    expect((await fetch(`${url}/hello`)).status).toBe(200);
  });

  test('in production, a route without a handler refuses to boot with HANDLERS_MISSING naming it', async () => {
    await expect(
      composeService(artifacts(configWith({})), {
        handlers: { hello: handlers.hello } as Handlers,
        env: { NODE_ENV: 'production' },
        projectDir,
      }),
    ).rejects.toMatchObject({ code: 'HANDLERS_MISSING', message: expect.stringContaining('later') });
  });

  test('in production without a signing secret, auth refuses to boot and the database is released', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-compose-'));
    try {
      const config = configWith({ auth: true, mail: { url: 'smtp://127.0.0.1:1' } }, `pglite:${dir}`);
      await expect(
        composeService(artifacts(config), { handlers, env: { NODE_ENV: 'production' }, projectDir }),
      ).rejects.toMatchObject({ code: 'AUTH_WEAK_SECRET' });
      // A PGlite directory left open would refuse the next start with STORE_LOCKED.
      const { app } = await listen(config, { env: { NODE_ENV: 'production', SVC_SECRET: SECRET } });
      expect(app.name).toBe('compose-test');
    } finally {
      for (const app of apps.splice(0)) await app.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('account routes are omitted or answered by the app one by one', async () => {
    const { url } = await listen(configWith({ auth: true }), {
      modules: {
        auth: {
          routes: {
            omit: ['logout'],
            replace: {
              register: () => {
                throw new HttpError(403, 'REGISTRATION_CLOSED', 'Registration is closed.');
              },
            },
          },
        },
        mail: { transport: mails().transport },
      },
    });
    const register = await fetch(`${url}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bo@example.com', password: 'a long enough password' }),
    });
    expect(register.status).toBe(403);
    expect(((await register.json()) as { error: { code: string } }).error.code).toBe('REGISTRATION_CLOSED');
    expect((await fetch(`${url}/auth/logout`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${url}/auth/login`, { method: 'POST' })).status).not.toBe(404);
  });

  test('handlers and plugins are built from the service: its stores, config and app', async () => {
    const seen: string[] = [];
    const plugin: Plugin = { name: 'probe', setup: () => void seen.push('plugin set up') };
    const { url } = await listen(configWith({}), {
      handlers: ({ stores, config }) => {
        seen.push(`handlers on ${stores.database} for ${config.name}`);
        return handlers;
      },
      plugins: ({ app }) => {
        seen.push(`plugins for ${app.name}`);
        return [plugin];
      },
    });
    expect((await fetch(`${url}/hello`)).status).toBe(200);
    expect(seen).toEqual([
      'plugins for compose-test',
      'handlers on memory for compose-test',
      'plugin set up',
    ]);
  });

  test('modules.tenancy: teams need accounts, take the spec roles, and the handlers get the Tenancy', async () => {
    const options = { handlers, env: DEV, projectDir, logger: collectingLogger() };
    await expect(composeService(artifacts(configWith({ tenancy: true })), options)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('enable modules.auth'),
    });
    await expect(
      composeService(artifacts(configWith({ auth: true, tenancy: { roles: [] } })), options),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('modules.tenancy') });
    await expect(
      composeService(artifacts(configWith({ auth: true, tenancy: true })), {
        ...options,
        modules: { tenancy: { resolveTennant: () => undefined } } as never,
      }),
    ).rejects.toMatchObject({ code: 'OPTION_UNKNOWN' });

    let roles: readonly string[] | undefined;
    const { url } = await listen(configWith({ auth: true, tenancy: { roles: ['lead', 'crew'] } }), {
      handlers: ({ tenancy }) => {
        roles = tenancy?.roles.roles;
        return handlers;
      },
      modules: { mail: { transport: mails().transport } },
    });
    expect(roles).toEqual(['lead', 'crew']);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const signedUp = (await (
      await post('/auth/register', { email: 'lead@example.com', password: 'a long enough password' })
    ).json()) as { accessToken: string };
    const team = await post(
      '/tenants',
      { name: 'Crew' },
      { authorization: `Bearer ${signedUp.accessToken}` },
    );
    expect(team.status).toBe(201);
    expect(((await team.json()) as { role: string }).role).toBe('lead');
  });

  test('unknown options and modules are refused', async () => {
    await expect(
      composeService(artifacts(configWith({})), { handlers, hanlders: {} } as never),
    ).rejects.toMatchObject({ code: 'OPTION_UNKNOWN' });
    await expect(
      composeService(artifacts(configWith({ auht: true })), { handlers, env: DEV, projectDir }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('modules.auht') });
  });

  test.each(['fastify', 'express', 'hono'] as const)(
    'on %s, a request in flight when the service closes still reaches the database',
    async (adapter) => {
      const database = await createDatabase();
      try {
        let arrived!: () => void;
        const inFlight = new Promise<void>((resolve) => (arrived = resolve));
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const config = { ...configWith({}, database.url), server: { ...configWith({}).server, adapter } };
        const { app, url } = await listen(config, {
          handlers: ({ stores }) => ({
            ...handlers,
            hello: async () => {
              arrived();
              await released;
              const { rows } = await stores.sql!.query<{ answer: number }>('SELECT 42 AS answer');
              return { hi: String(rows[0]?.answer) };
            },
          }),
        });
        const answer = fetch(`${url}/hello`);
        await inFlight;
        const closed = app.close();
        release();
        const response = await answer;
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ hi: '42' });
        await closed;
      } finally {
        for (const app of apps.splice(0)) await app.close();
        await database.drop();
      }
    },
  );
});
