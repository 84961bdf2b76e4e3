// Shared stores over HTTP on every adapter (docs/stores.md): two app instances on one PostgreSQL and one
// Redis count route rate limits and login failures together; when Redis or PostgreSQL goes away, the requests
// that need it answer 503 STORE_UNAVAILABLE (none passes a check it should not), requests that need neither
// keep working, and everything serves again once the backend is back, with no restart.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authModule,
  healthPlugin,
  idempotencyPlugins,
  openStores,
  route,
  securityPlugin,
  type Plugin,
  type Stores,
} from 'svckit';
import {
  createDatabase,
  databaseServer,
  startRedis,
  tcpProxy,
  throughProxy,
  type TcpProxy,
  type TestDatabase,
  type TestRedis,
} from '../backends.js';
import { adapters, call, type AdapterUnderTest, type RunningServer } from './harness.js';

const PASSWORD = 'a long enough password';
const ENV = { SVC_SECRET: 'shared-stores-http-secret-0123456789abcdef', NODE_ENV: 'test' };

let database: TestDatabase;
let redis: TestRedis;
let proxy: TcpProxy;
let databaseUrl: string;

beforeAll(async () => {
  [database, redis] = await Promise.all([createDatabase(), startRedis()]);
  proxy = await tcpProxy(databaseServer(database.url));
  databaseUrl = throughProxy(database.url, proxy.port);
  const migrated = await openStores({ database: database.url }, { migrate: true, sweepIntervalMs: 0 });
  await migrated.close();
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await redis?.kill();
  await database?.drop();
});

interface Instance {
  server: RunningServer;
  stores: Stores;
}

/** One app instance (a "process"): its own connections to the shared backends, the auth and edge plugins. */
async function instance(adapter: AdapterUnderTest, redisPrefix: string): Promise<Instance> {
  const stores = await openStores(
    { database: databaseUrl, redis: redis.url },
    { redisPrefix, sweepIntervalMs: 0 },
  );
  const auth = authModule(true, { stores, env: ENV });
  const plugins: Plugin[] = [
    ...(auth?.plugins ?? []),
    securityPlugin({ headers: false, rateLimit: { store: stores.rateLimit! } }),
    healthPlugin({ checks: stores.healthChecks }),
    ...idempotencyPlugins(true, { store: stores.idempotency }),
  ];
  const routes = [
    route({ method: 'GET', url: '/mine', meta: { auth: true }, handler: ({ context }) => context.user }),
    route({
      method: 'GET',
      url: '/limited',
      meta: { rateLimit: { limit: 2, windowMs: 60_000 } },
      handler: () => ({ ok: true }),
    }),
    route({ method: 'POST', url: '/things', meta: { auth: true }, handler: () => ({ made: true }) }),
  ];
  const server = await adapter.start({ routes, plugins });
  return { server, stores };
}

async function stop(...instances: Instance[]): Promise<void> {
  for (const { server, stores } of instances) {
    await server.close();
    await stores.close();
  }
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const email = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;
const codeOf = (answer: { json: unknown }) => (answer.json as { error?: { code?: string } }).error?.code;

async function register(url: string, address: string): Promise<{ accessToken: string; cookie: string }> {
  const registered = await call(`${url}/auth/register`, json({ email: address, password: PASSWORD }));
  expect(registered.status).toBe(201);
  const signedIn = await call(`${url}/auth/login`, json({ email: address, password: PASSWORD }));
  expect(signedIn.status).toBe(200);
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { accessToken: (signedIn.json as { accessToken: string }).accessToken, cookie };
}

describe.each(adapters)('shared stores on $name', (adapter) => {
  const prefix = `svc-http-${adapter.name}-${randomBytes(4).toString('hex')}:`;

  it('two instances count route rate limits and login failures together', async () => {
    const a = await instance(adapter, prefix);
    const b = await instance(adapter, prefix);
    try {
      expect((await call(`${a.server.url}/limited`)).status).toBe(200);
      expect((await call(`${b.server.url}/limited`)).status).toBe(200);
      const limited = await call(`${a.server.url}/limited`);
      expect(limited.status).toBe(429);
      expect(codeOf(limited)).toBe('RATE_LIMITED');

      const address = email('throttle');
      await call(`${a.server.url}/auth/register`, json({ email: address, password: PASSWORD }));
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const target = attempt % 2 === 0 ? a : b;
        statuses.push(
          (await call(`${target.server.url}/auth/login`, json({ email: address, password: 'nope' }))).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
    } finally {
      await stop(a, b);
    }
  });

  it('answers 503 STORE_UNAVAILABLE while Redis is down, lets nothing through, and recovers', async () => {
    const app = await instance(adapter, prefix);
    try {
      const { accessToken, cookie } = await register(app.server.url, email('redis'));
      const bearer = { authorization: `Bearer ${accessToken}` };
      await redis.kill();
      const needsRedis = [
        await call(`${app.server.url}/mine`, { headers: { cookie } }),
        await call(`${app.server.url}/limited`),
        await call(`${app.server.url}/auth/login`, json({ email: 'x@example.com', password: PASSWORD })),
        await call(`${app.server.url}/things`, {
          method: 'POST',
          headers: { ...bearer, 'idempotency-key': 'k' },
        }),
      ];
      for (const answer of needsRedis) {
        expect(answer.status).toBe(503);
        expect(answer.json).toEqual({
          error: { code: 'STORE_UNAVAILABLE', message: 'Redis is unavailable.', details: { store: 'redis' } },
        });
      }
      // A bearer JWT needs no store: that request is still served, as the user it names.
      const mine = await call(`${app.server.url}/mine`, { headers: bearer });
      expect(mine.status).toBe(200);
      const ready = await call(`${app.server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.json).toEqual({
        status: 'unavailable',
        checks: { database: { ok: true }, redis: { ok: false } },
      });

      await redis.start();
      let back = await call(`${app.server.url}/limited`);
      for (let tries = 0; back.status === 503 && tries < 50; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        back = await call(`${app.server.url}/limited`);
      }
      expect(back.status).toBe(200);
      expect((await call(`${app.server.url}/readyz`)).status).toBe(200);
    } finally {
      await stop(app);
    }
  }, 30_000);

  it('answers 503 STORE_UNAVAILABLE while PostgreSQL is unreachable, and recovers', async () => {
    const app = await instance(adapter, prefix);
    try {
      const address = email('pg');
      await register(app.server.url, address);
      await proxy.cut();
      try {
        for (const answer of [
          await call(`${app.server.url}/auth/login`, json({ email: address, password: PASSWORD })),
          await call(`${app.server.url}/auth/register`, json({ email: email('new'), password: PASSWORD })),
        ]) {
          expect(answer.status).toBe(503);
          expect(answer.json).toEqual({
            error: {
              code: 'STORE_UNAVAILABLE',
              message: 'PostgreSQL is unavailable.',
              details: { store: 'database' },
            },
          });
        }
        expect((await call(`${app.server.url}/readyz`)).status).toBe(503);
      } finally {
        await proxy.restore();
      }
      const again = await call(`${app.server.url}/auth/login`, json({ email: address, password: PASSWORD }));
      expect(again.status).toBe(200);
    } finally {
      await stop(app);
    }
  }, 30_000);
});
