// Answers that carry credentials are never stored or replayed under an idempotency key (issue: a keyed
// sign-in replayed the first caller's tokens to a wrong password from another address, and kept them in
// plaintext in the store). The account routes that answer tokens declare `idempotency: false`; any answer
// marked `Cache-Control: no-store` frees its key. Shown on every adapter with the memory store, and on
// PostgreSQL and Redis by reading what the store holds.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import {
  MemoryIdempotencyStore,
  authModule,
  idempotencyPlugin,
  openStores,
  route,
  type IdempotencyRecord,
  type IdempotencyStore,
  type Stores,
} from 'svckit';
import { createDatabase, startRedis, type TestDatabase, type TestRedis } from '../backends.js';
import { ALICE, codeOf, post, register, withAuth, type SignedIn } from './auth-harness.js';
import { adapters, withServer } from './harness.js';

/** The memory store, remembering every body it was asked to keep. */
class KeptBodies implements IdempotencyStore {
  readonly bodies: string[] = [];
  private readonly inner = new MemoryIdempotencyStore();
  get(key: string) {
    return this.inner.get(key);
  }
  setPending(key: string) {
    return this.inner.setPending(key);
  }
  complete(key: string, record: IdempotencyRecord) {
    this.bodies.push(record.body);
    return this.inner.complete(key, record);
  }
  release(key: string) {
    return this.inner.release(key);
  }
}

describe.each(adapters)('idempotency and credentials on $name', (adapter) => {
  it('a keyed sign-in is never replayed: the same key and cookie with a wrong password answers 401', async () => {
    const store = new KeptBodies();
    await withAuth(
      adapter,
      async ({ url }) => {
        const { session } = await register(url);
        const headers = { cookie: `svc_session=${encodeURIComponent(session)}`, 'idempotency-key': 'k' };
        const first = await post(url, '/auth/login', ALICE, headers);
        expect(first.status).toBe(200);
        const replay = await post(url, '/auth/login', { ...ALICE, password: 'not the password' }, headers);
        expect([replay.status, codeOf(replay.json)]).toEqual([401, 'AUTH_INVALID_CREDENTIALS']);
        expect(replay.headers.get('idempotent-replayed')).toBeNull();
        expect(replay.text).not.toContain((first.json as SignedIn).accessToken);
      },
      { plugins: [idempotencyPlugin({ store })] },
    );
    expect(store.bodies).toEqual([]);
  });

  it('a keyed refresh is never replayed: a garbage token under the same key answers 401', async () => {
    const store = new KeptBodies();
    await withAuth(
      adapter,
      async ({ url }) => {
        const { refreshToken } = await register(url);
        const headers = { cookie: 'theme=dark', 'idempotency-key': 'r' };
        expect((await post(url, '/auth/refresh', { refreshToken }, headers)).status).toBe(200);
        const garbage = await post(url, '/auth/refresh', { refreshToken: 'garbage' }, headers);
        expect([garbage.status, codeOf(garbage.json)]).toEqual([401, 'AUTH_REFRESH_INVALID']);
        const register2 = await post(url, '/auth/register', { ...ALICE, email: 'b@example.com' }, headers);
        expect(register2.status).toBe(201);
      },
      { plugins: [idempotencyPlugin({ store })] },
    );
    expect(store.bodies).toEqual([]);
  });
});

describe('credentials in shared idempotency stores', () => {
  let database: TestDatabase;
  let redis: TestRedis;

  beforeAll(async () => {
    [database, redis] = await Promise.all([createDatabase(), startRedis()]);
  }, 60_000);

  afterAll(async () => {
    await redis?.kill();
    await database?.drop();
  });

  /** Signs in under keys and makes a keyed note; returns the access token the store must not hold. */
  async function exercise(stores: Stores): Promise<string> {
    const auth = authModule(true, {
      stores,
      env: { SVC_SECRET: 'idempotency-credentials-secret-0123456789', NODE_ENV: 'test' },
    });
    const notes = route({ method: 'POST', url: '/notes', handler: () => ({ id: 'n1' }) });
    const [adapter] = adapters;
    return withServer(
      adapter!,
      {
        routes: [notes],
        plugins: [...(auth?.plugins ?? []), idempotencyPlugin({ store: stores.idempotency(60_000) })],
      },
      async (url) => {
        const email = `${randomBytes(4).toString('hex')}@example.com`;
        const account = { email, password: 'a long enough password' };
        const key = { 'idempotency-key': 'same' };
        const registered = await post(url, '/auth/register', account, key);
        const signedIn = await post(url, '/auth/login', account, key);
        expect([registered.status, signedIn.status]).toEqual([201, 200]);
        const token = (signedIn.json as SignedIn).accessToken;
        const note = await post(url, '/notes', {}, { authorization: `Bearer ${token}`, ...key });
        expect(note.status).toBe(200);
        return token;
      },
    );
  }

  it('PostgreSQL keeps the keyed note and no sign-in answer', async () => {
    const stores = await openStores({ database: database.url }, { migrate: true, sweepIntervalMs: 0 });
    try {
      const token = await exercise(stores);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ body: string | null }>('SELECT body FROM svc_idempotency');
        expect(rows.map((row) => row.body)).toEqual(['{"id":"n1"}']);
        expect(JSON.stringify(rows)).not.toContain(token.split('.')[2]);
      } finally {
        await client.end();
      }
    } finally {
      await stores.close();
    }
  });

  it('Redis keeps the keyed note and no sign-in answer', async () => {
    const prefix = `svc-idem-${randomBytes(4).toString('hex')}:`;
    const stores = await openStores(
      { database: 'memory', redis: redis.url },
      { redisPrefix: prefix, sweepIntervalMs: 0 },
    );
    const client = new Redis(redis.url);
    try {
      const token = await exercise(stores);
      const keys = await client.keys(`${prefix}idempotency:*`);
      const bodies = await Promise.all(keys.map((key) => client.hget(key, 'body')));
      expect(bodies).toEqual(['{"id":"n1"}']);
      expect(JSON.stringify(bodies)).not.toContain(token.split('.')[2]);
    } finally {
      client.disconnect();
      await stores.close();
    }
  });
});
