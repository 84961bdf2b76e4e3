// One logger seam (runtime/log/): JSON lines on stderr by default, one Logger per app (`createApp({ logger })`)
// that every plugin reaches as `app.logger`, and every line svckit writes goes through it.
import { describe, expect, it, vi } from 'vitest';
import {
  Auth,
  authPlugin,
  collectingLogger,
  createApp,
  defaultLogger,
  HttpError,
  jsonLogger,
  otlpHttpExporter,
  route,
  SqlSweeper,
  tracingPlugin,
  UNDECLARED_ERROR_MESSAGE,
  type Route,
} from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { honoPlugin } from 'svckit/hono';
import { routeDefinitions } from '../../generated/routes.js';

async function served(
  routes: Route[],
  logger = collectingLogger(),
  plugins: Parameters<ReturnType<typeof createApp>['register']>[0][] = [],
) {
  const app = createApp({ name: 'test', logger });
  for (const plugin of plugins) app.register(plugin);
  app.register(fastifyPlugin({ routes }));
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, logger };
}

describe('jsonLogger', () => {
  it('writes one JSON object per line: level, time, msg, then the fields; below its level nothing', () => {
    const lines: string[] = [];
    const logger = jsonLogger({ write: (line) => lines.push(line), now: () => new Date(0), level: 'info' });
    logger.debug('hidden');
    logger.warn('disk low', { free: 3, msg: 'not the message' });
    expect(lines).toEqual(['{"level":"warn","time":"1970-01-01T00:00:00.000Z","msg":"disk low","free":3}']);
  });

  it('writes to stderr by default and never throws on a cycle', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      jsonLogger().error('cycle', { cyclic });
      expect(String(write.mock.calls[0]?.[0])).toMatch(
        /^\{"level":"error",.*"cyclic":\{"self":"\[Circular\]"\}\}\n$/,
      );
    } finally {
      write.mockRestore();
    }
  });
});

describe('the app logger', () => {
  it('is the default logger unless createApp is given one, and refuses a non-logger', () => {
    expect(createApp().logger).toBe(defaultLogger);
    const logger = collectingLogger();
    expect(createApp({ logger }).logger).toBe(logger);
    expect(() => createApp({ logger: {} as never })).toThrow(
      expect.objectContaining({
        code: 'OPTION_INVALID',
        message: expect.stringMatching(/^App: logger must be/),
      }),
    );
  });

  it('receives the request-failure report of the adapters (default onError)', async () => {
    const failing = route({
      method: 'GET',
      url: '/boom',
      handler: () => {
        throw new Error('kaput');
      },
    });
    const { app, url, logger } = await served([failing]);
    try {
      expect((await fetch(`${url}/boom`)).status).toBe(500);
      expect(logger.at('error')).toEqual([
        expect.objectContaining({
          msg: 'request failed',
          fields: expect.objectContaining({
            code: 'INTERNAL_ERROR',
            status: 500,
            method: 'GET',
            route: '/boom',
          }),
        }),
      ]);
    } finally {
      await app.close();
    }
  });

  it("knows what a generated route declares: the spec's `errors:`", () => {
    const declared = Object.fromEntries(
      routeDefinitions.map((definition) => [definition.id, definition.errors]),
    );
    expect(declared).toMatchObject({ getNote: ['NOTE_NOT_FOUND'], listNotes: ['NOTE_CURSOR_INVALID'] });
  });

  it('warns once per route and code when a route answers an application code it does not declare', async () => {
    const teapot = (code: string) => () => {
      throw new HttpError(418, code, 'No.');
    };
    const routes = [
      route({
        id: 'brew',
        method: 'GET',
        url: '/brew',
        errors: ['TEA_ONLY'],
        handler: teapot('COFFEE_REFUSED'),
      }),
      route({ id: 'tea', method: 'GET', url: '/tea', errors: ['TEA_ONLY'], handler: teapot('TEA_ONLY') }),
      // svckit's own codes are the runtime's; a route without `errors` declares nothing and is not checked.
      route({ id: 'auth', method: 'GET', url: '/auth', errors: [], handler: teapot('AUTH_REQUIRED') }),
      route({ id: 'loose', method: 'GET', url: '/loose', handler: teapot('COFFEE_REFUSED') }),
    ];
    const { app, url, logger } = await served(routes);
    try {
      for (const path of ['/brew', '/brew', '/tea', '/auth', '/loose'])
        expect((await fetch(url + path)).status).toBe(418);
      expect(logger.at('warn')).toEqual([
        {
          level: 'warn',
          msg: UNDECLARED_ERROR_MESSAGE,
          fields: {
            routeId: 'brew',
            method: 'GET',
            route: '/brew',
            code: 'COFFEE_REFUSED',
            declared: ['TEA_ONLY'],
          },
        },
      ]);
    } finally {
      await app.close();
    }
  });

  it('receives a throwing span exporter (tracingPlugin) and a failed export (otlpHttpExporter)', async () => {
    const exporter = {
      export() {
        throw new Error('exporter down');
      },
    };
    const ok = route({ method: 'GET', url: '/ok', handler: () => 'ok' });
    const { app, url, logger } = await served([ok], collectingLogger(), [tracingPlugin({ exporter })]);
    try {
      await fetch(`${url}/ok`);
      await fetch(`${url}/ok`);
    } finally {
      await app.close();
    }
    expect(logger.at('warn')).toEqual([
      expect.objectContaining({ fields: { error: expect.objectContaining({ message: 'exporter down' }) } }),
    ]);

    const exportLog = collectingLogger();
    const otlp = otlpHttpExporter({
      url: 'http://127.0.0.1:9/v1/traces',
      logger: exportLog,
      timeoutMs: 2000,
    });
    otlp.export({
      serviceName: 's',
      traceId: '0'.repeat(31) + '1',
      spanId: '0'.repeat(15) + '1',
      parentSpanId: undefined,
      name: 'GET /',
      kind: 'server',
      startTimeUnixMs: 0,
      endTimeUnixMs: 1,
      attributes: {},
      status: 'unset',
      flags: '01',
    });
    await otlp.flush();
    expect(exportLog.at('warn')).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ url: 'http://127.0.0.1:9/v1/traces' }) }),
    ]);
  });

  it('receives a failing auth event listener once authPlugin registers the Auth', async () => {
    const auth = new Auth({ secret: 'x'.repeat(32), nodeEnv: 'test' });
    const logger = collectingLogger();
    const app = createApp({ logger });
    app.register(authPlugin({ auth, routes: false, nodeEnv: 'test' }));
    app.register(fastifyPlugin({}));
    await app.boot();
    app.hooks.on('auth:registered', () => {
      throw new Error('listener broke');
    });
    await auth.register('me@example.com', 'a long password');
    await vi.waitFor(() => expect(logger.at('error')).toHaveLength(1));
    expect(logger.at('error')[0]).toMatchObject({
      msg: 'auth event listener failed',
      fields: { event: 'auth:registered', error: { message: 'listener broke' } },
    });
    await app.close();
  });

  it("receives Hono's warning that no client IP is available, once", async () => {
    const logger = collectingLogger();
    const hono = honoPlugin({
      routes: [route({ method: 'GET', url: '/ip', handler: ({ request }) => String(request.ip) })],
    });
    const app = createApp({ logger });
    app.register(hono);
    await app.boot();
    for (let index = 0; index < 2; index++) {
      expect(await (await hono.fetch(new Request('http://localhost/ip'))).text()).toBe('undefined');
    }
    expect(logger.at('warn')).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/^svc \(hono\): no client IP is available/) }),
    ]);
    await app.close();
  });

  it('receives a failed SQL sweep', async () => {
    const logger = collectingLogger();
    const client = { query: () => Promise.reject(new Error('database down')) };
    const sweeper = new SqlSweeper(client as never, { logger });
    await sweeper.sweep();
    await sweeper.stop();
    expect(logger.at('warn')).toEqual([
      {
        level: 'warn',
        msg: 'sweeping expired rows failed',
        fields: { error: expect.objectContaining({ message: 'database down' }) },
      },
    ]);
  });
});
