// Option errors in the catalog (like Fastify's FST_ERR_*): a programming mistake in an options object throws
// an OptionError, a TypeError carrying OPTION_UNKNOWN or OPTION_INVALID from spec/errors.yaml and naming owner
// and option; the same mistake read from svc.config.yaml is CONFIG_INVALID.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import {
  adapterPlugin,
  createApp,
  edgePlugins,
  healthPlugin,
  idempotencyPlugin,
  mcpRoutes,
  MemorySessionStore,
  metricsPlugin,
  OptionError,
  rawBody,
  securityPlugin,
  sse,
  stream,
  svcErrors,
  tracingPlugin,
  upload,
} from 'svckit';
import { expressPlugin } from 'svckit/express';
import { fastifyPlugin } from 'svckit/fastify';
import { honoPlugin } from 'svckit/hono';
import { catalog } from '../../generated/modules/errors.js';

async function rejected(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

/** OPTION_INVALID from `owner`, a TypeError whose message names the option in the one wording. */
function expectInvalidOption(error: unknown, owner: string, option: string): void {
  expect(error).toBeInstanceOf(TypeError);
  expect(error).toBeInstanceOf(OptionError);
  expect(error).toMatchObject({ code: 'OPTION_INVALID', owner, option });
  const escape = (text: string): string => text.replace(/[()[\]]/g, '\\$&');
  expect((error as Error).message).toMatch(new RegExp(`^${escape(owner)}: ${escape(option)} must be .+\\.$`));
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('OptionError', () => {
  it('carries catalog codes that refuse start-up', () => {
    expect(catalog.OPTION_UNKNOWN.status).toBe('boot');
    expect(catalog.OPTION_INVALID.status).toBe('boot');
  });

  it('an unknown key: OPTION_UNKNOWN, a TypeError with the documented wording', () => {
    const error = thrown(() => securityPlugin({ cors: { origin: ['*'] }, rateLimt: {} } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toBeInstanceOf(OptionError);
    expect(error).toMatchObject({
      code: 'OPTION_UNKNOWN',
      owner: 'securityPlugin()',
      option: 'rateLimt',
      message:
        'securityPlugin(): unknown option "rateLimt" (did you mean "rateLimit"?); it takes headers, cors, rateLimit.',
    });
  });

  it('a wrong type or a value out of range: OPTION_INVALID naming owner and option', () => {
    const cases: [() => unknown, string, string][] = [
      [() => metricsPlugin({ prefix: '1bad' }), 'metricsPlugin()', 'prefix'],
      [() => healthPlugin({ checkTimeoutMs: 0 }), 'healthPlugin()', 'checkTimeoutMs'],
      [() => tracingPlugin({ serviceName: '' }), 'tracingPlugin()', 'serviceName'],
      [() => idempotencyPlugin({ allowAnonymous: 'yes' as never }), 'idempotencyPlugin()', 'allowAnonymous'],
      [() => new MemorySessionStore({ maxEntries: 0 }), 'MemorySessionStore', 'maxEntries'],
      [() => mcpRoutes({ path: 'mcp' }), 'mcpRoutes', 'path'],
    ];
    for (const [run, owner, option] of cases) {
      const error = thrown(run);
      expect(error).toBeInstanceOf(OptionError);
      expect(error).toMatchObject({ code: 'OPTION_INVALID', owner, option });
      expect((error as Error).message).toMatch(
        new RegExp(`^${owner.replace(/[()]/g, '\\$&')}: ${option} must be .+\\.$`),
      );
    }
  });

  it('from svc.config.yaml the same mistake is CONFIG_INVALID naming the setting', () => {
    const error = thrown(() => edgePlugins({ metrics: { prefix: '1bad' } }, { serviceName: 'test' }));
    expect(error).not.toBeInstanceOf(TypeError);
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(
        /^modules\.edge\.metrics: metricsPlugin\(\): prefix must be .*\(from svc\.config\.yaml\)$/,
      ),
    });
  });

  it('an error that is not an option check passes through module settings unchanged', () => {
    const bug = new TypeError('a bug, not a setting');
    const error = thrown(() =>
      edgePlugins(
        { health: true },
        {
          serviceName: 'test',
          get healthChecks(): never {
            throw bug;
          },
        },
      ),
    );
    expect(error).toBe(bug);
    expect(svcErrors.CONFIG_INVALID().code).toBe('CONFIG_INVALID');
  });

  it('route bodies, streamed replies and the adapters take part: OPTION_INVALID naming owner and option', () => {
    const cases: [() => unknown, string, string][] = [
      [() => upload({ maxBytes: 0, maxFiles: 1 }), 'upload()', 'maxBytes'],
      [() => upload({ maxBytes: 10, maxFiles: -1 }), 'upload()', 'maxFiles'],
      [() => upload({ maxBytes: 10, maxFiles: 1, allowedTypes: [] }), 'upload()', 'allowedTypes'],
      [() => upload({ maxBytes: 10, maxFiles: 1, allowedTypes: ['png'] }), 'upload()', 'allowedTypes'],
      [() => upload(null as never), 'upload()', 'options'],
      [() => rawBody({ maxBytes: -1 }), 'rawBody()', 'maxBytes'],
      [() => sse(() => undefined, { heartbeatMs: 0 }), 'sse()', 'heartbeatMs'],
      [() => sse(() => undefined, { maxDurationMs: Number.NaN }), 'sse()', 'maxDurationMs'],
      [() => stream(Readable.from(['x']), { status: 99 }), 'stream()', 'status'],
      [() => stream(Readable.from(['x']), { contentLength: -1 }), 'stream()', 'contentLength'],
      [
        () => stream(Readable.from(['x']), { filename: 'a', disposition: 'x' as never }),
        'stream()',
        'disposition',
      ],
      [() => expressPlugin({ bodyLimit: -1 }), 'expressPlugin()', 'bodyLimit'],
      [() => expressPlugin({ requestTimeout: 1.5 }), 'expressPlugin()', 'requestTimeout'],
      [() => expressPlugin({ app: {} as never }), 'expressPlugin()', 'app'],
      [() => honoPlugin({ bodyLimit: -1 }), 'honoPlugin()', 'bodyLimit'],
      [() => honoPlugin({ requestTimeout: -1 }), 'honoPlugin()', 'requestTimeout'],
    ];
    for (const [run, owner, option] of cases) expectInvalidOption(thrown(run), owner, option);
  });

  it('adapterPlugin() refuses an adapter it does not know, and every adapter a routes that is no list', async () => {
    expectInvalidOption(await rejected(() => adapterPlugin('koa' as never)), 'adapterPlugin()', 'adapter');
    for (const [plugin, owner] of [
      [fastifyPlugin({ routes: 'routes' as never }), 'fastifyPlugin()'],
      [expressPlugin({ routes: 'routes' as never }), 'expressPlugin()'],
      [honoPlugin({ routes: 'routes' as never }), 'honoPlugin()'],
    ] as const) {
      expectInvalidOption(await rejected(() => createApp().register(plugin).boot()), owner, 'routes');
    }
  });
});
