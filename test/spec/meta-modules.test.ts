// A route meta key whose module is off would be silently ignored (an open route behind `auth: true`, no limit
// behind `rateLimit`, no tool behind `mcp`): the build refuses it at the key, naming what to enable. `false`
// asks for nothing and needs no module; a module the start may enable through `${VAR}` counts as on.
import { describe, expect, it } from 'vitest';
import { HEAD, expectOnly, load, problemsOf } from './helpers.js';

/** One GET route `a` whose meta is `meta` (the meta key starts at line 5, column 39), then `tail`. */
const spec = (meta: string, tail = '') =>
  `${HEAD}routes:\n  a: { method: GET, path: /a, meta: { ${meta} } }\n${tail}`;
const KEY = { line: 5, column: 39 };

describe('meta keys whose module is off', () => {
  it.each([
    ['auth: true', 'auth'],
    ['mfa: true', 'auth'],
    ['account: true', 'auth'],
    ['idempotency: optional', 'idempotency'],
    ['mcp: true', 'mcp'],
    ['mcp: { name: list_a }', 'mcp'],
  ])('refuses %s without modules.%s, at the key, naming what to enable', async (meta, module) => {
    const key = meta.slice(0, meta.indexOf(':'));
    await expectOnly(spec(meta), {
      ...KEY,
      message: `routes.a.meta.${key} needs the ${module} module, which this spec does not enable: nothing would enforce it`,
      hint: `enable it with modules: { ${module}: true }, or remove ${key} (${key}: false opts the route out)`,
      path: `routes.a.meta.${key}`,
    });
    await expect(load(spec(meta, `modules:\n  ${module}: true\n`))).resolves.toBeDefined();
  });

  it.each(['rateLimit: { limit: 5, windowMs: 1000 }', 'documentHeaders: true'])(
    'refuses %s without the security plugin of modules.edge',
    async (meta) => {
      const key = meta.slice(0, meta.indexOf(':'));
      const message = `routes.a.meta.${key} needs the security plugin of the edge module, which this spec does not enable: nothing would enforce it`;
      await expectOnly(spec(meta), {
        ...KEY,
        message,
        hint: `enable it with modules: { edge: { security: true } }, or remove ${key} (${key}: false opts the route out)`,
      });
      await expectOnly(spec(meta, 'modules:\n  edge: { health: true }\n'), {
        ...KEY,
        message,
        hint: `enable it with security: true under modules.edge, or remove ${key} (${key}: false opts the route out)`,
      });
      await expect(load(spec(meta, 'modules:\n  edge: true\n'))).resolves.toBeDefined();
      await expect(
        load(spec(meta, 'modules:\n  edge: { security: { headers: true } }\n')),
      ).resolves.toBeDefined();
    },
  );

  it.each(["can: 'tenant:members'", 'teamRole: admin', 'central: true'])(
    'refuses %s without modules.tenancy (which needs modules.auth)',
    async (meta) => {
      const key = meta.slice(0, meta.indexOf(':'));
      await expectOnly(spec(meta, 'modules: { auth: true }\n'), {
        ...KEY,
        message: `routes.a.meta.${key} needs the tenancy module, which this spec does not enable: nothing would enforce it`,
        hint: `enable it with modules: { tenancy: true }, or remove ${key} (${key}: false opts the route out)`,
        path: `routes.a.meta.${key}`,
      });
      await expect(load(spec(meta, 'modules: { auth: true, tenancy: true }\n'))).resolves.toBeDefined();
    },
  );

  it.each(['scopes: [notes:read]', 'apiKey: true'])(
    'refuses %s without modules.auth.apiKeys: auth: true does not turn API keys on',
    async (meta) => {
      const key = meta.slice(0, meta.indexOf(':'));
      const message = `routes.a.meta.${key} needs modules.auth.apiKeys, which this spec does not enable: nothing would enforce it`;
      for (const modules of ['', 'modules: { auth: true }\n']) {
        await expectOnly(spec(meta, modules), {
          ...KEY,
          message,
          hint: `enable it with modules: { auth: { apiKeys: true } }, or remove ${key} (${key}: false opts the route out)`,
          path: `routes.a.meta.${key}`,
        });
      }
      for (const modules of [
        'modules: { auth: { mfa: true } }\n',
        'modules: { auth: { apiKeys: false } }\n',
      ]) {
        await expectOnly(spec(meta, modules), {
          ...KEY,
          message,
          hint: `enable it with apiKeys: true under modules.auth, or remove ${key} (${key}: false opts the route out)`,
        });
      }
      await expect(load(spec(meta, 'modules: { auth: { apiKeys: true } }\n'))).resolves.toBeDefined();
      await expect(
        load(spec(meta, "modules: { auth: { apiKeys: { scopes: ['notes:read'] } } }\n")),
      ).resolves.toBeDefined();
    },
  );

  it('allows apiKey: false (a sign-in only) without API keys, and without the auth module', async () => {
    expect((await load(spec('apiKey: false'))).routes[0]!.meta.apiKey).toBe(false);
    expect((await load(spec('apiKey: false', 'modules: { auth: true }\n'))).routes[0]!.meta.apiKey).toBe(
      false,
    );
  });

  it('reports every key of every route, each at its own place', async () => {
    const result = await problemsOf(
      `${HEAD}routes:\n  a: { method: GET, path: /a, meta: { auth: true, mcp: true } }\n  b: { method: GET, path: /b, meta: { auth: true } }\n`,
    );
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.path}`)).toEqual([
      '5:39 routes.a.meta.auth',
      '5:51 routes.a.meta.mcp',
      '6:39 routes.b.meta.auth',
    ]);
  });

  it('allows an opt-off false of every such key without its module', async () => {
    const off =
      'auth: false, mfa: false, account: false, rateLimit: false, documentHeaders: false, idempotency: false, mcp: false, scopes: false, apiKey: false, can: false, teamRole: false, central: false';
    const ir = await load(spec(off));
    expect(ir.routes[0]!.meta.mcp).toBe(false);
  });

  it('needs no module for the core keys, nor for subscribed and feature (an application plugin claims them)', async () => {
    const ir = await load(
      spec(
        'etag: true, summary: A, description: The a., tags: [a], deprecated: true, subscribed: pro, feature: beta',
      ),
    );
    expect(ir.routes[0]!.meta).toMatchObject({ etag: true, subscribed: 'pro', feature: 'beta' });
  });

  it('counts a module written as ${VAR} as on: the start may enable it', async () => {
    const ir = await load(
      spec(
        'mcp: true, idempotency: optional',
        "modules:\n  mcp: '${MCP:-false}'\n  idempotency: '${IDEMPOTENCY}'\n",
      ),
      {
        IDEMPOTENCY: 'false',
      },
    );
    expect(Object.keys(ir.moduleSettings)).toEqual(['idempotency', 'mcp']);
  });

  it('never lets a custom metaKeys declaration stand in for a built-in key', async () => {
    await expectOnly(`${HEAD}routes: {}\nmetaKeys:\n  scopes: { schema: { type: array } }\n`, {
      line: 6,
      column: 3,
      message: "'scopes' is a built-in meta key",
    });
  });
});
