// Boot checks through the adapter: unguarded meta keys, claims, waivers, meta validators.
import { describe, expect, it } from 'vitest';
import { route, type MetaValidator, type Plugin, type Route } from 'svckit';
import { adapters, call, withServer } from './harness.js';

const guardedRoute = (meta: Route['meta']) =>
  route({ method: 'GET', url: '/secure', meta, handler: () => 'ok' });

const claims = (...keys: string[]): Plugin => ({
  name: 'test-guard',
  setup(app) {
    app.metadata.add('http:guarded-meta', ...keys.map((key) => ({ key, plugin: 'test-guard' })));
    app.metadata.add('http:guards', { name: 'test-guard', check: () => undefined });
  },
});

const declaresGuarded = (key: string): Plugin => ({
  name: 'declares',
  setup(app) {
    app.metadata.add('http:guarded-meta-keys', key);
  },
});

const validatorPlugin = (validator: MetaValidator): Plugin => ({
  name: 'validator',
  setup(app) {
    app.metadata.add('http:meta-validators', validator);
  },
});

describe.each(adapters)('boot checks on $name', (adapter) => {
  it('refuses to boot a route with an unclaimed guarded key', async () => {
    await expect(adapter.start({ routes: [guardedRoute({ auth: true })] })).rejects.toMatchObject({
      code: 'HTTP_UNGUARDED_ROUTE_META',
      unguarded: [{ route: 'GET /secure', key: 'auth' }],
    });
  });

  it('boots when a plugin claimed the key', async () => {
    await withServer(
      adapter,
      { routes: [guardedRoute({ auth: true })], plugins: [claims('auth')] },
      async (url) => {
        expect((await call(`${url}/secure`)).text).toBe('ok');
      },
    );
  });

  it('never flags false opt-offs', async () => {
    await withServer(adapter, { routes: [guardedRoute({ apiKey: false, mfa: false })] }, async (url) => {
      expect((await call(`${url}/secure`)).status).toBe(200);
    });
  });

  it('allowUnguardedMeta: true waives all keys', async () => {
    const routes = [guardedRoute({ auth: true, scopes: ['a'], can: 'x' })];
    await withServer(adapter, { routes, options: { allowUnguardedMeta: true } }, async (url) => {
      expect((await call(`${url}/secure`)).status).toBe(200);
    });
  });

  it('allowUnguardedMeta: an array waives only the named keys', async () => {
    const routes = [guardedRoute({ auth: true, scopes: ['a'] })];
    await withServer(
      adapter,
      { routes, options: { allowUnguardedMeta: ['auth', 'scopes'] } },
      async (url) => {
        expect((await call(`${url}/secure`)).status).toBe(200);
      },
    );
    await expect(adapter.start({ routes, options: { allowUnguardedMeta: ['auth'] } })).rejects.toMatchObject({
      code: 'HTTP_UNGUARDED_ROUTE_META',
      unguarded: [{ route: 'GET /secure', key: 'scopes' }],
    });
  });

  it('guards keys a plugin declares in http:guarded-meta-keys', async () => {
    await expect(
      adapter.start({
        routes: [guardedRoute({ billingPlan: 'pro' })],
        plugins: [declaresGuarded('billingPlan')],
      }),
    ).rejects.toMatchObject({ code: 'HTTP_UNGUARDED_ROUTE_META' });
  });

  it('refuses invalid meta from a meta validator with its problems, never waived', async () => {
    const validator: MetaValidator = {
      name: 'team-roles',
      validate: (r) => (r.meta.teamRole === 'overlord' ? ['unknown team role "overlord"'] : []),
    };
    const routes = [guardedRoute({ teamRole: 'overlord' })];
    await expect(
      adapter.start({
        routes,
        plugins: [validatorPlugin(validator), claims('teamRole')],
        options: { allowUnguardedMeta: true },
      }),
    ).rejects.toMatchObject({
      code: 'HTTP_INVALID_ROUTE_META',
      problems: [{ route: 'GET /secure', problem: 'unknown team role "overlord"' }],
    });
  });

  it('runs the core meta validator', async () => {
    await expect(
      adapter.start({
        routes: [guardedRoute({ etag: 'yes', tags: 'one' } as unknown as Route['meta'])],
        options: { allowUnguardedMeta: true },
      }),
    ).rejects.toMatchObject({
      code: 'HTTP_INVALID_ROUTE_META',
      problems: [
        { route: 'GET /secure', problem: 'meta.etag must be a boolean' },
        { route: 'GET /secure', problem: 'meta.tags must be an array of strings' },
      ],
    });
  });

  it('does not validate rateLimit at boot', async () => {
    await withServer(adapter, { routes: [guardedRoute({ rateLimit: 'lots' })] }, async (url) => {
      expect((await call(`${url}/secure`)).status).toBe(200);
    });
  });
});
