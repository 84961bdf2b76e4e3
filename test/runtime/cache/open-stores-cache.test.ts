// openStores' hot cache across processes: two openStores on one PostgreSQL database (and one Redis), each
// with its own clients, caches and bus, as two processes of a service. What one caches it serves without a
// round trip; a session ended, an API key revoked or a member removed on the other is refused at once (within
// the bus's delivery, polled for at most 200 ms) over Redis pub/sub, and without Redis over LISTEN/NOTIFY.
// Also: the cache is off with `cache: false` or everything in memory, and bad cache options refuse to boot.
import { isUp, until } from './bus-watch.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../../runtime/auth/apikeys/store.js';
import type { SessionRecord } from '../../../runtime/auth/stores/sessions.js';
import { CachedSessionStore } from '../../../runtime/stores/cache/cached-sessions.js';
import { openStores, type OpenStoresOptions, type Stores } from '../../../runtime/stores/open.js';
import { createDatabase, type TestDatabase } from '../../backends.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const HOUR = 3_600_000;
const PREFIX = `svc-cache-${randomBytes(4).toString('hex')}:`;

/** Asks `read` again every 10 ms until it answers undefined; fails after 200 ms. */
async function refusedWithin200Ms(read: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 200;
  for (;;) {
    if ((await read()) === undefined) return;
    if (Date.now() > deadline) throw new Error('still served 200 ms after the change');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function session(userId: string): SessionRecord {
  const now = Date.now();
  return { userId, amr: ['pwd'], createdAt: now, expiresAt: now + HOUR };
}

function apiKey(userId: string): ApiKeyRecord {
  const id = randomUUID();
  return {
    id,
    hash: `hash-${id}`,
    name: 'CI',
    start: 'mk_live_AbCd',
    last4: 'wxyz',
    scopes: ['reports:read'],
    tenantId: undefined,
    userId,
    createdAt: Date.now(),
    expiresAt: undefined,
    lastUsedAt: undefined,
  };
}

let database: TestDatabase;
const opened: Stores[] = [];

async function open(redis: boolean, options: OpenStoresOptions = {}): Promise<Stores> {
  const stores = await openStores(
    { database: database.url, redis: redis ? REDIS_URL : undefined },
    { appMigrations: false, sweepIntervalMs: 0, redisPrefix: PREFIX, ...options },
  );
  opened.push(stores);
  // When the bus comes up it drops everything cached before (messages may have been missed), which would
  // otherwise race the test's first reads.
  if (stores.invalidation !== undefined) await until(() => isUp(stores.invalidation!), 2000);
  return stores;
}

beforeAll(async () => {
  database = await createDatabase();
  await open(false, { migrate: true, cache: false });
}, 20_000);

afterAll(async () => {
  await Promise.all(opened.map((stores) => stores.close()));
  await database.drop();
});

/** A session created on A, read and cached on B, then ended on A: B refuses it. */
async function sessionEndedOnA(a: Stores, b: Stores, dropBehindSvc: (idHash: string) => Promise<void>) {
  const idHash = randomUUID();
  const record = session('alice');
  await a.sessions!.create(idHash, record);
  expect(await b.sessions!.get(idHash, Date.now())).toEqual(record);
  // Gone from the store behind svc's back: B still serves it, from its cache.
  await dropBehindSvc(idHash);
  expect(await b.sessions!.get(idHash, Date.now())).toEqual(record);
  await a.sessions!.delete(idHash);
  await refusedWithin200Ms(() => b.sessions!.get(idHash, Date.now()));
}

/** A key added on A, cached on B, then revoked on A: B refuses it. */
async function keyRevokedOnA(a: Stores, b: Stores) {
  const key = apiKey('alice');
  expect(await a.apiKeys!.add(key, 10, Date.now())).toBe('added');
  expect(await b.apiKeys!.findByHash(key.hash)).toEqual(key);
  await a.sql!.query('UPDATE svc_api_keys SET name = $1 WHERE id = $2', ['renamed behind svc', key.id]);
  expect((await b.apiKeys!.findByHash(key.hash))?.name).toBe('CI'); // cached
  expect(await a.apiKeys!.remove(key.id)).toBe(true);
  await refusedWithin200Ms(() => b.apiKeys!.findByHash(key.hash));
}

describe('openStores: the hot cache across two processes', () => {
  it('over Redis: a session, an API key and a membership changed on A are refused on B at once', async () => {
    const [a, b] = [await open(true), await open(true)];
    expect(a.invalidation).toBeDefined();
    expect(a.sessions).toBeInstanceOf(CachedSessionStore);
    const raw = new Redis(REDIS_URL);
    try {
      await sessionEndedOnA(a, b, async (idHash) => {
        expect(await raw.del(`${PREFIX}session:${idHash}`)).toBe(1);
      });
    } finally {
      raw.disconnect();
    }
    await keyRevokedOnA(a, b);

    // Set up on B: a change made on A would reach B's cache a moment later and could evict what B reads next.
    const tenant = await b.memberships!.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
    expect((await b.memberships!.addMember(tenant.id, 'bob', 'member')).ok).toBe(true);
    expect(await b.memberships!.roleOf(tenant.id, 'bob')).toBe('member');
    expect(await b.memberships!.roleOf(tenant.id, 'carol')).toBeUndefined();
    await a.sql!.query('UPDATE svc_tenant_members SET role = $1 WHERE tenant_id = $2 AND user_id = $3', [
      'admin',
      tenant.id,
      'bob',
    ]);
    expect(await b.memberships!.roleOf(tenant.id, 'bob')).toBe('member'); // cached
    const removed = await a.memberships!.removeMember(tenant.id, 'bob', { protectedRole: 'owner' });
    expect(removed.ok).toBe(true);
    await refusedWithin200Ms(() => b.memberships!.roleOf(tenant.id, 'bob'));
  });

  it('over PostgreSQL alone: a session and an API key ended on A are refused on B at once', async () => {
    const [a, b] = [await open(false), await open(false)];
    expect(a.invalidation).toBeDefined();
    await sessionEndedOnA(a, b, async (idHash) => {
      await a.sql!.query('DELETE FROM svc_sessions WHERE id_hash = $1', [idHash]);
    });
    await keyRevokedOnA(a, b);
  });

  it('caches nothing with cache: false, nor with every store in memory', async () => {
    const off = await open(false, { cache: false });
    expect(off.invalidation).toBeUndefined();
    expect(off.sessions).not.toBeInstanceOf(CachedSessionStore);
    const memory = await openStores({ database: 'memory' });
    expect(memory.invalidation).toBeUndefined();
    await memory.close();
  });

  it('refuses a cache option it does not know, or a bad value, before opening anything', async () => {
    const url = 'postgres://127.0.0.1:1/never-opened';
    await expect(openStores({ database: url }, { cache: { maxEntrys: 5 } as never })).rejects.toMatchObject({
      code: 'OPTION_UNKNOWN',
      message: expect.stringContaining('openStores(): cache: unknown option "maxEntrys"'),
    });
    await expect(openStores({ database: url }, { cache: { maxAgeMs: 0 } })).rejects.toMatchObject({
      code: 'OPTION_INVALID',
      message: expect.stringContaining('cache.maxAgeMs'),
    });
    await expect(openStores({ database: url }, { cache: true as never })).rejects.toMatchObject({
      code: 'OPTION_INVALID',
    });
  });
});
