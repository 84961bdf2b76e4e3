// `modules.auth.apiKeys`: the option that adds the API-key routes, the settings the build reads (the key header,
// the scopes keys may carry), the check that every route's `meta.scopes` names a scope some key can hold, and the
// application's ApiKeyInput listing those scopes.
import { describe, expect, it } from 'vitest';
import { API_KEY_ROUTE_IDS } from '../../runtime/auth/http/apikey-routes.js';
import { emitOpenApi } from '../../generator/emit-openapi.js';
import { HEAD, expectOnly, load, problemsOf } from './helpers.js';

/** Route `a` (GET /a) with `meta`, under `modules`. */
const spec = (meta: string, modules: string) =>
  `${HEAD}routes:\n  a: { method: GET, path: /a, meta: { ${meta} } }\nmodules:\n${modules}`;

function lineOf(yaml: string, text: string): number {
  return yaml.slice(0, yaml.indexOf(text)).split('\n').length;
}

async function apiKeyInputScopes(modules: string): Promise<unknown> {
  const ir = await load(`${HEAD}routes: {}\nmodules:\n${modules}`);
  const resource = ir.modules?.[0]?.resources.find((candidate) => candidate.name === 'ApiKeyInput');
  return (resource?.schema as { properties: { scopes: unknown } } | undefined)?.properties.scopes;
}

describe('modules.auth.apiKeys turns the API-key routes on', () => {
  it('adds apiKeyCreate, apiKeyList and apiKeyRevoke with true or a mapping, never with auth: true alone', async () => {
    const ids = async (modules: string) =>
      (await load(`${HEAD}routes: {}\nmodules:\n${modules}`)).modules![0]!.routes.map((route) => route.id);
    for (const off of ['  auth: true\n', '  auth: { apiKeys: false }\n']) {
      for (const id of API_KEY_ROUTE_IDS) expect(await ids(off)).not.toContain(id);
    }
    for (const on of ['  auth: { apiKeys: true }\n', "  auth: { apiKeys: { scopes: ['notes:read'] } }\n"]) {
      expect((await ids(on)).slice(-3)).toEqual(API_KEY_ROUTE_IDS);
    }
  });

  it('refuses a ${VAR} for the option: it decides which routes the build documents', async () => {
    const { problems } = await problemsOf(
      `${HEAD}routes: {}\nmodules:\n  auth:\n    apiKeys: \${API_KEYS:-true}\n`,
    );
    expect(problems.map(({ path, message }) => ({ path, message }))).toEqual([
      {
        path: 'modules.auth.apiKeys',
        message:
          'modules.auth.apiKeys decides which routes the build documents, so it cannot be a ${VAR} resolved at start',
      },
    ]);
  });

  it('keeps the header and the scopes in the module model (defaults x-api-key and *); none while off', async () => {
    const settings = async (modules: string) =>
      (await load(`${HEAD}routes: {}\nmodules:\n${modules}`)).moduleSettings.auth;
    expect((await settings('  auth: { apiKeys: true }\n'))?.apiKeys).toEqual({
      header: 'x-api-key',
      scopes: ['*'],
    });
    expect(
      (await settings("  auth: { apiKeys: { header: x-key, scopes: ['notes:read', 'notes:write'] } }\n"))
        ?.apiKeys,
    ).toEqual({ header: 'x-key', scopes: ['notes:read', 'notes:write'] });
    expect(await settings('  auth: true\n')).not.toHaveProperty('apiKeys');
  });

  it('refuses settings the runtime would refuse: an unknown key, maxPerUser below 1, a bad header name', async () => {
    for (const [option, path] of [
      ['{ scope: [a] }', 'modules.auth.apiKeys.scope'],
      ['{ maxPerUser: 0 }', 'modules.auth.apiKeys.maxPerUser'],
      ["{ header: 'x api key' }", 'modules.auth.apiKeys.header'],
      ['{ page: { csp: true } }', 'modules.auth.apiKeys.page.csp'],
    ] as const) {
      const { problems } = await problemsOf(`${HEAD}routes: {}\nmodules:\n  auth: { apiKeys: ${option} }\n`);
      expect(problems.map((problem) => problem.path)).toEqual([path]);
    }
    await expect(
      load(
        `${HEAD}routes: {}\nmodules:\n  auth:\n    apiKeys: { maxPerUser: 5, allowTenantlessKeys: true, allowNarrowKeysOnUnscopedRoutes: false, page: { path: /keys, title: Keys, csp: false } }\n`,
      ),
    ).resolves.toBeDefined();
  });
});

describe('the key header and routes that refuse keys', () => {
  it('refuses a header another part reads, a reserved one, a ${VAR} or one with other characters', async () => {
    for (const [modules, message] of [
      [
        '  auth: { apiKeys: { header: X-Team } }\n  tenancy: { header: x-team }\n',
        'the header modules.tenancy.header reads',
      ],
      ['  auth: { apiKeys: { header: x-tenant-id } }\n  tenancy: true\n', 'modules.tenancy.header'],
      [
        '  auth: { apiKeys: { header: idempotency-key } }\n  idempotency: true\n',
        'modules.idempotency.header',
      ],
      ['  auth: { apiKeys: { header: X-Session-Id } }\n', 'already means something else'],
      ["  auth:\n    apiKeys: { header: '${KEY_HEADER:-x-key}' }\n", 'cannot be a ${VAR}'],
      ['  auth: { apiKeys: { header: x_api_key } }\n', ''],
    ] as const) {
      const { problems } = await problemsOf(`${HEAD}routes: {}\nmodules:\n${modules}`);
      expect(problems.map((problem) => problem.path)).toEqual(['modules.auth.apiKeys.header']);
      expect(problems[0]!.message).toContain(message);
    }
    // The tenant header of a spec without tenancy is no conflict.
    await expect(
      load(`${HEAD}routes: {}\nmodules:\n  auth: { apiKeys: { header: x-tenant-id } }\n`),
    ).resolves.toBeDefined();
  });

  it('refuses scopes on a route that refuses every key (apiKey: false)', async () => {
    for (const modules of ['  auth: { apiKeys: true }\n', "  auth: { apiKeys: { scopes: ['n:r'] } }\n"]) {
      const { problems } = await problemsOf(spec("scopes: ['n:r'], apiKey: false", modules));
      expect(problems.map(({ path, message }) => ({ path, message }))).toEqual([
        {
          path: 'routes.a.meta.scopes',
          message: expect.stringContaining('but the route refuses every key (apiKey: false)'),
        },
      ]);
    }
  });
});

describe('the scopes keys may carry', () => {
  it("refuses a route's scope that is not one of modules.auth.apiKeys.scopes, at the item, suggesting the near one", async () => {
    const yaml = spec(
      "scopes: ['notes:read', 'notes:wirte']",
      "  auth: { apiKeys: { scopes: ['notes:read', 'notes:write'] } }\n",
    );
    await expectOnly(yaml, {
      line: lineOf(yaml, 'a: {'),
      column: yaml.split('\n')[lineOf(yaml, 'a: {') - 1]!.indexOf("'notes:wirte'") + 1,
      path: 'routes.a.meta.scopes.1',
      message:
        "routes.a.meta.scopes.1: scope 'notes:wirte' is not one of modules.auth.apiKeys.scopes: no key could hold it",
      hint: "did you mean 'notes:write'? the scopes keys may carry: notes:read, notes:write; or add 'notes:wirte' to modules.auth.apiKeys.scopes",
    });
  });

  it('accepts any well-formed scope while keys may carry * (apiKeys: true, or * listed)', async () => {
    for (const modules of [
      '  auth: { apiKeys: true }\n',
      "  auth: { apiKeys: { scopes: ['*', 'a:b'] } }\n",
    ]) {
      const ir = await load(spec("scopes: ['reports:read']", modules));
      expect(ir.routes[0]!.meta.scopes).toEqual(['reports:read']);
    }
  });

  it('refuses a malformed scope in a route and in modules.auth.apiKeys.scopes', async () => {
    const route = await problemsOf(spec("scopes: ['notes read']", '  auth: { apiKeys: true }\n'));
    expect(route.problems.map((problem) => problem.path)).toEqual(['routes.a.meta.scopes.0']);
    expect(route.problems[0]!.hint).toContain('e.g. reports:read');
    const offered = await problemsOf(
      `${HEAD}routes: {}\nmodules:\n  auth: { apiKeys: { scopes: [':read', 'a:b', 'a:b'] } }\n`,
    );
    expect(offered.problems.map((problem) => problem.path)).toEqual([
      'modules.auth.apiKeys.scopes.0',
      'modules.auth.apiKeys.scopes',
    ]);
  });

  it('refuses a ${VAR} among the offered scopes: the build checks routes against them', async () => {
    const { problems } = await problemsOf(
      `${HEAD}routes: {}\nmodules:\n  auth: { apiKeys: { scopes: ['notes:read', '\${EXTRA_SCOPE:-notes:write}'] } }\n`,
    );
    expect(problems.map(({ path, message }) => ({ path, message }))).toEqual([
      {
        path: 'modules.auth.apiKeys.scopes.1',
        message:
          'modules.auth.apiKeys.scopes decides what the build checks meta.scopes against and the scopes openapi.json lists, so it cannot hold a ${VAR} resolved at start',
      },
    ]);
  });
});

describe("the application's ApiKeyInput lists the offered scopes", () => {
  it('narrows scopes.items to an enum of modules.auth.apiKeys.scopes, keeping the rest of the resource', async () => {
    const scopes = await apiKeyInputScopes(
      "  auth: { apiKeys: { scopes: ['notes:read', 'notes:write'] } }\n",
    );
    expect(scopes).toEqual({
      type: 'array',
      minItems: 1,
      maxItems: 50,
      uniqueItems: true,
      items: { type: 'string', enum: ['notes:read', 'notes:write'] },
    });
    expect(await apiKeyInputScopes('  auth: { apiKeys: true }\n')).toMatchObject({
      items: { type: 'string', enum: ['*'] },
    });
  });

  it('puts the enum in openapi.json; without API keys there is no ApiKeyInput at all', async () => {
    const ir = await load(
      `${HEAD}routes: {}\nmodules:\n  auth: { apiKeys: { scopes: ['notes:read', 'notes:write'] } }\n`,
    );
    const schemas = emitOpenApi(ir, { header: '' }).components.schemas as Record<
      string,
      { properties: { scopes: { items: unknown } } }
    >;
    expect(schemas.ApiKeyInput!.properties.scopes.items).toEqual({
      type: 'string',
      enum: ['notes:read', 'notes:write'],
    });
    const without = emitOpenApi(await load(`${HEAD}routes: {}\nmodules:\n  auth: true\n`), { header: '' });
    expect(without.components.schemas).not.toHaveProperty('ApiKeyInput');
  });
});
