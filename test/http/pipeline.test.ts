// Enrichers and guards over HTTP: order, what guards see, guard rejections before validation, scopes.
import { describe, expect, it } from 'vitest';
import { HttpError, route, type Plugin, type Scope } from 'svckit';
import { adapters, call, withServer } from './harness.js';

function authPlugin(order: string[]): Plugin {
  return {
    name: 'fake-auth',
    setup(app) {
      app.container.provide('greeting', 'hello');
      app.metadata.add('http:enrichers', {
        name: 'user-from-header',
        enrich: async ({ request, context }) => {
          order.push('enricher');
          await Promise.resolve();
          const user = request.headers['x-user'];
          if (typeof user === 'string') context.user = { id: user };
          context.container?.provide('requestUser', user ?? 'anonymous');
        },
      });
      app.metadata.add('http:guards', {
        name: 'auth',
        check: ({ route: target, context }) => {
          order.push(`guard:${(context.user as { id?: string } | undefined)?.id ?? 'none'}`);
          if (target.meta.auth === true && context.user === undefined) {
            throw new HttpError(401, 'AUTH_REQUIRED', 'Authentication required.');
          }
        },
      });
      app.metadata.add('http:guarded-meta', { key: 'auth', plugin: 'fake-auth' });
    },
  };
}

const routes = (order: string[]) => [
  route<{ body: { n: number } }>({
    method: 'POST',
    url: '/private',
    meta: { auth: true },
    body: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: ({ body, context }) => {
      order.push('handler');
      const scope = context.container as Scope;
      return {
        user: context.user,
        n: body.n,
        greeting: scope.get('greeting'),
        scoped: scope.get('requestUser'),
      };
    },
  }),
  route({ method: 'GET', url: '/public', handler: ({ context }) => ({ user: context.user ?? null }) }),
];

describe.each(adapters)('enrichers and guards on $name', (adapter) => {
  it('runs enrichers, then guards (which see enricher values), then validation, then the handler', async () => {
    const order: string[] = [];
    await withServer(adapter, { routes: routes(order), plugins: [authPlugin(order)] }, async (url) => {
      const response = await call(`${url}/private`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'u1' },
        body: '{"n":1}',
      });
      expect(response.json).toEqual({ user: { id: 'u1' }, n: 1, greeting: 'hello', scoped: 'u1' });
    });
    expect(order).toEqual(['enricher', 'guard:u1', 'handler']);
  });

  it('answers a guard rejection even when the input is also invalid', async () => {
    const order: string[] = [];
    await withServer(adapter, { routes: routes(order), plugins: [authPlugin(order)] }, async (url) => {
      const response = await call(`${url}/private`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":"not a number"}',
      });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({
        error: { code: 'AUTH_REQUIRED', message: 'Authentication required.' },
      });
      const unsupported = await call(`${url}/private`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      });
      expect(unsupported.status).toBe(401);
    });
    expect(order).not.toContain('handler');
  });

  it('validates after the guards pass', async () => {
    const order: string[] = [];
    await withServer(adapter, { routes: routes(order), plugins: [authPlugin(order)] }, async (url) => {
      const response = await call(`${url}/private`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'u1' },
        body: '{"n":"x"}',
      });
      expect(response.status).toBe(400);
      expect((response.json as { error: { part: string } }).error.part).toBe('body');
    });
  });

  it('runs enrichers and guards on every app route and keeps request scopes apart', async () => {
    const order: string[] = [];
    await withServer(adapter, { routes: routes(order), plugins: [authPlugin(order)] }, async (url) => {
      const [a, b] = await Promise.all([
        call(`${url}/public`, { headers: { 'x-user': 'a' } }),
        call(`${url}/public`),
      ]);
      expect(a.json).toEqual({ user: { id: 'a' } });
      expect(b.json).toEqual({ user: null });
    });
    expect(order.filter((step) => step === 'enricher')).toHaveLength(2);
  });
});
