// svc.config.yaml `modules.edge` and `modules.idempotency` as the reference service reads them: true turns a
// module on with its defaults, a mapping names plugins and options, and a bad value refuses to boot with
// CONFIG_INVALID naming the setting.
import { describe, expect, it } from 'vitest';
import { BootError, edgePlugins, idempotencyPlugins } from 'svckit';

const DOCUMENT = { openapi: '3.1.0', info: { title: 'Notes', version: '1' }, paths: {} };
const context = { serviceName: 'notes', openapiDocument: DOCUMENT };
const names = (plugins: { name: string }[]) => plugins.map((plugin) => plugin.name);

function configError(build: () => unknown): { message: string; option: string | undefined } {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(BootError);
    const boot = error as BootError & { details?: { problems?: Array<{ option: string }> } };
    expect(boot.code).toBe('CONFIG_INVALID');
    return { message: boot.message, option: boot.details?.problems?.[0]?.option };
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('modules.edge', () => {
  it('enables all five edge plugins with edge: true, in registration order', () => {
    expect(names(edgePlugins(true, context))).toEqual([
      'svc:security',
      'svc:health',
      'svc:metrics',
      'svc:tracing',
      'svc:openapi',
    ]);
  });

  it('enables only the plugins a mapping names; false and absence leave them off', () => {
    expect(
      names(edgePlugins({ health: true, metrics: { prefix: 'notes_' }, tracing: false }, context)),
    ).toEqual(['svc:health', 'svc:metrics']);
    expect(edgePlugins(undefined, context)).toEqual([]);
    expect(edgePlugins(false, context)).toEqual([]);
    expect(edgePlugins({}, context)).toEqual([]);
  });

  it('ignores the generator-side openapi options (title, tags), and serves a document without the generated one', () => {
    expect(names(edgePlugins({ openapi: { title: 'Notes', tags: { notes: 'Notes' } } }, context))).toEqual([
      'svc:openapi',
    ]);
    // Without the generated document the served one describes the registered routes from their schemas.
    expect(names(edgePlugins({ openapi: true }, { serviceName: 'notes' }))).toEqual(['svc:openapi']);
    const misspelt = configError(() => edgePlugins({ openapi: { pth: '/doc.json' } }, context));
    expect(misspelt.option).toBe('modules.edge.openapi');
    expect(misspelt.message).toMatch(/unknown option "pth"/);
  });

  it('refuses unknown plugins, bad values and bad options with CONFIG_INVALID naming the setting', () => {
    const unknown = configError(() => edgePlugins({ securty: true }, context));
    expect(unknown.option).toBe('modules.edge');
    expect(unknown.message).toMatch(/unknown plugin securty; known: security, health/);
    expect(configError(() => edgePlugins('on', context)).option).toBe('modules.edge');
    expect(configError(() => edgePlugins({ metrics: 'yes' }, context)).option).toBe('modules.edge.metrics');
    const security = configError(() =>
      edgePlugins({ security: { rateLimit: { limit: 0, windowMs: 1 } } }, context),
    );
    expect(security.option).toBe('modules.edge.security');
    expect(security.message).toMatch(/^modules\.edge\.security: securityPlugin\(\): .*rateLimit/);
    expect(configError(() => edgePlugins({ metrics: { path: 'metrics' } }, context)).option).toBe(
      'modules.edge.metrics',
    );
    expect(configError(() => edgePlugins({ health: { checkTimeoutMs: -1 } }, context)).option).toBe(
      'modules.edge.health',
    );
  });
});

describe('modules.idempotency', () => {
  it('enables the plugin with true or options, and leaves it off otherwise', () => {
    expect(names(idempotencyPlugins(true))).toEqual(['svc:idempotency']);
    expect(names(idempotencyPlugins({ allowAnonymous: true, ttlMs: 60000 }))).toEqual(['svc:idempotency']);
    expect(idempotencyPlugins(undefined)).toEqual([]);
    expect(idempotencyPlugins(false)).toEqual([]);
  });

  it('refuses bad options with CONFIG_INVALID naming modules.idempotency', () => {
    const bad = configError(() => idempotencyPlugins({ allowAnonymous: 'yes' }));
    expect(bad.option).toBe('modules.idempotency');
    expect(bad.message).toMatch(/^modules\.idempotency: idempotencyPlugin\(\): .*allowAnonymous/);
    expect(configError(() => idempotencyPlugins({ retries: 3 })).message).toMatch(/retries/);
  });
});
