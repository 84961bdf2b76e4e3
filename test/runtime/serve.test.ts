// serve() prints where the app listens, and outside production (NODE_ENV exactly development or test) one
// line saying so and how to run in production; in production it prints no such line.
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, mcpPlugin, route, serve, SERVE_MODE_ENV, type ServeMode } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

const saved = process.env.NODE_ENV;

afterEach(() => {
  if (saved === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = saved;
});

async function startupLines(nodeEnv: string | undefined): Promise<string[]> {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
  const app = createApp({ name: 'lines', version: '1.0.0' });
  app.register(fastifyPlugin({ routes: [route({ method: 'GET', url: '/', handler: () => 'ok' })] }));
  const lines: string[] = [];
  const served = await serve(app, {
    port: 0,
    host: '127.0.0.1',
    handleSignals: false,
    log: (line) => lines.push(line),
  });
  await served.close();
  return lines;
}

describe('serve() start-up lines', () => {
  it.each(['development', 'test'])(
    'says once that NODE_ENV=%s is not production and how to run in production',
    async (mode) => {
      const lines = await startupLines(mode);
      expect(lines[0]).toMatch(/^lines 1\.0\.0 listening on http:\/\/127\.0\.0\.1:\d+ \(fastify\)$/);
      const notices = lines.filter((line) => line.includes('not production'));
      expect(notices).toEqual([
        `  mode      NODE_ENV=${mode}, not production: mails and their links go to this log, cookies lack Secure, ` +
          'the signing secret is kept under .svc/. In production: NODE_ENV=production and SVC_SECRET (32+ characters).',
      ]);
    },
  );

  it.each([undefined, 'production', 'Development'])(
    'prints no such line when NODE_ENV is %s (production)',
    async (mode) => {
      const lines = await startupLines(mode);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.some((line) => line.includes('not production'))).toBe(false);
    },
  );
});

// A launching command (`svc mcp`) names a serve mode in SVC_SERVE_MODE; serve() runs the mode a registered
// plugin published under that name instead of listening, so the kernel imports no feature to offer it.
describe('serve() in a serve mode', () => {
  afterEach(() => {
    delete process.env[SERVE_MODE_ENV];
  });

  function appWithMode(mode: ServeMode | undefined) {
    const app = createApp({ name: 'modes', version: '1.0.0' });
    if (mode) app.register({ name: 'probe-mode', setup: (a) => a.metadata.add('app:serve-modes', mode) });
    app.register(fastifyPlugin({ routes: [route({ method: 'GET', url: '/', handler: () => 'ok' })] }));
    return app;
  }

  it('runs the named mode on the booted app instead of listening', async () => {
    const bootedWhenStarted: boolean[] = [];
    const app = appWithMode({
      name: 'probe',
      usesStdout: false,
      async start(booted, log) {
        log('probe serving');
        bootedWhenStarted.push(booted.booted);
        return { url: 'probe:', close: () => booted.close() };
      },
    });
    process.env[SERVE_MODE_ENV] = 'probe';
    const lines: string[] = [];
    const served = await serve(app, { handleSignals: false, log: (line) => lines.push(line) });
    expect(served.url).toBe('probe:');
    expect(bootedWhenStarted).toEqual([true]);
    expect(lines).toEqual(['probe serving']);
    await served.close();
  });

  it('refuses to start when no registered plugin provides the named mode', async () => {
    process.env[SERVE_MODE_ENV] = 'mcp-stdio';
    const app = appWithMode(undefined);
    let closed = 0;
    app.hooks.on('app:closing', () => void closed++);
    await expect(serve(app, { handleSignals: false, log: () => {} })).rejects.toThrow(
      /serve as "mcp-stdio" \(SVC_SERVE_MODE\), but no registered plugin provides that mode/,
    );
    // What boot opened is closed again: the refused process holds nothing open.
    expect(closed).toBe(1);
  });

  it('listens as usual when SVC_SERVE_MODE is empty', async () => {
    process.env[SERVE_MODE_ENV] = '';
    const lines: string[] = [];
    const served = await serve(appWithMode(undefined), {
      port: 0,
      handleSignals: false,
      log: (line) => lines.push(line),
    });
    expect(lines[0]).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    await served.close();
  });

  it('mcpPlugin offers the mode `svc mcp` asks for (tools over stdio, start-up lines on stderr)', async () => {
    const app = createApp();
    app.register(mcpPlugin());
    await app.boot();
    expect(
      app.metadata.list('app:serve-modes').map(({ name, usesStdout }) => ({ name, usesStdout })),
    ).toEqual([{ name: 'mcp-stdio', usesStdout: true }]);
  });
});
