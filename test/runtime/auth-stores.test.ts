// The in-memory auth stores: the four store contracts, then what only the memory
// backends promise: bounds and eviction order (expired first, then oldest), AUTH_STORE_FULL instead of evicting
// an account, indexes that follow evictions, and results that are copies.
import { describe, expect, it } from 'vitest';
import {
  MemoryOneTimeTokenStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  MemoryUserSource,
  type OneTimeTokenRecord,
  type RefreshTokenRecord,
  type SessionRecord,
} from 'svckit';
import { oneTimeTokenStoreContract } from './contracts/one-time-token-store.js';
import { refreshTokenStoreContract } from './contracts/refresh-token-store.js';
import { sessionStoreContract } from './contracts/session-store.js';
import { userSourceContract } from './contracts/user-source.js';
import { rejectionOf } from './contracts/rejection.js';

userSourceContract(
  'MemoryUserSource',
  () => new MemoryUserSource(),
  (users) => new MemoryUserSource({ users }),
);
sessionStoreContract('MemorySessionStore', () => new MemorySessionStore());
refreshTokenStoreContract('MemoryRefreshTokenStore', () => new MemoryRefreshTokenStore());
oneTimeTokenStoreContract('MemoryOneTimeTokenStore', () => new MemoryOneTimeTokenStore());

const MINUTE = 60_000;

function session(userId: string, createdAt: number, lifetime = 10 * MINUTE): SessionRecord {
  return { userId, amr: ['pwd'], createdAt, expiresAt: createdAt + lifetime };
}

function refreshToken(
  userId: string,
  familyId: string,
  createdAt: number,
  lifetime = 10 * MINUTE,
): RefreshTokenRecord {
  return { userId, familyId, amr: ['pwd'], createdAt, expiresAt: createdAt + lifetime };
}

function oneTimeToken(userId: string, createdAt: number, lifetime = 10 * MINUTE): OneTimeTokenRecord {
  return {
    purpose: 'reset-password',
    userId,
    email: `${userId}@example.com`,
    createdAt,
    expiresAt: createdAt + lifetime,
  };
}

describe('MemoryUserSource', () => {
  it('refuses a sign-up with AUTH_STORE_FULL (507) once maxUsers accounts exist, and evicts no one', async () => {
    const source = new MemoryUserSource({ maxUsers: 2 });
    const first = await source.create({ email: 'a@example.com', passwordHash: 'h' });
    await source.create({ email: 'b@example.com', passwordHash: 'h' });
    const full = await rejectionOf(source.create({ email: 'c@example.com', passwordHash: 'h' }));
    expect(full.code).toBe('AUTH_STORE_FULL');
    expect(full.status).toBe(507);
    expect(await source.findById(first.id)).toEqual(first);
    expect(await source.findByEmail('c@example.com')).toBeNull();
    expect(source.size).toBe(2);
    // A taken address is still reported as taken, not as a full store.
    expect((await rejectionOf(source.create({ email: 'A@example.com' }))).code).toBe('AUTH_EMAIL_TAKEN');
  });

  it('keeps initial rows as given and makes ids with newId', async () => {
    let next = 0;
    const source = new MemoryUserSource({
      users: [{ id: 'legacy', email: 'Legacy@Example.com', emailVerified: true }],
      newId: () => `user-${++next}`,
    });
    expect(await source.findByEmail('legacy@example.com')).toEqual({
      id: 'legacy',
      email: 'Legacy@Example.com',
      emailVerified: true,
    });
    expect((await source.create({ email: 'new@example.com' })).id).toBe('user-1');
  });

  it('hands out copies: changing a result or an input changes nothing stored', async () => {
    const initial = { id: 'u1', email: 'alice@example.com', passwordHash: 'h', emailVerified: false };
    const source = new MemoryUserSource({ users: [initial] });
    initial.emailVerified = true;
    const found = await source.findById('u1');
    if (found === null) throw new Error('u1 missing');
    found.email = 'mallory@example.com';
    found.passwordHash = 'other';
    const created = await source.create({ email: 'bob@example.com', passwordHash: 'hb' });
    created.emailVerified = true;
    const updated = await source.update('u1', { emailVerified: false });
    if (updated === null) throw new Error('u1 missing');
    updated.passwordHash = 'changed';
    const [listed] = await source.findByIds(['u1']);
    if (listed === undefined) throw new Error('u1 missing');
    listed.email = 'changed@example.com';
    expect(await source.findById('u1')).toEqual({
      id: 'u1',
      email: 'alice@example.com',
      passwordHash: 'h',
      emailVerified: false,
    });
    expect(await source.findByEmail('mallory@example.com')).toBeNull();
    expect((await source.findById(created.id))?.emailVerified).toBe(false);
  });

  it('refuses bad options with a TypeError', () => {
    expect(() => new MemoryUserSource({ maxUsers: 0 })).toThrow(TypeError);
    expect(() => new MemoryUserSource({ maxUsers: 1.5 })).toThrow(TypeError);
    const row = { id: 'u1', email: 'a@example.com', emailVerified: false };
    expect(() => new MemoryUserSource({ users: [row, { ...row, email: 'b@example.com' }] })).toThrow(
      TypeError,
    );
    expect(() => new MemoryUserSource({ maxUsers: 1, users: [row, { ...row, id: 'u2' }] })).toThrow(
      TypeError,
    );
  });
});

describe('MemorySessionStore bounds', () => {
  it('when full, sweeps expired sessions first', async () => {
    const store = new MemorySessionStore({ maxEntries: 3 });
    await store.create('expired', session('u1', 0, MINUTE));
    await store.create('a', session('u2', 1));
    await store.create('b', session('u3', 2));
    await store.create('new', session('u4', MINUTE));
    expect(store.size).toBe(3);
    expect(await store.get('a', MINUTE)).toBeDefined();
    expect(await store.get('b', MINUTE)).toBeDefined();
    expect(await store.get('new', MINUTE)).toBeDefined();
    // The swept session no longer counts for its user.
    expect(await store.deleteByUser('u1')).toBe(0);
  });

  it('then evicts the oldest session, which signs that user out', async () => {
    const store = new MemorySessionStore({ maxEntries: 2 });
    await store.create('oldest', session('alice', 0));
    await store.create('middle', session('bob', 1));
    await store.create('newest', session('carol', 2));
    expect(await store.get('oldest', 3)).toBeUndefined();
    expect(await store.get('middle', 3)).toBeDefined();
    expect(await store.get('newest', 3)).toBeDefined();
    expect(await store.deleteByUser('alice')).toBe(0);
  });

  it('forgets an evicted or replaced session in the per-user index', async () => {
    const store = new MemorySessionStore({ maxEntries: 1 });
    await store.create('s1', session('alice', 0));
    await store.create('s2', session('bob', 1)); // evicts s1
    await store.create('s1', session('carol', 2)); // evicts s2; s1 now belongs to carol
    expect(await store.deleteByUser('alice')).toBe(0);
    expect(await store.get('s1', 3)).toMatchObject({ userId: 'carol' });
    const roomy = new MemorySessionStore();
    await roomy.create('s1', session('alice', 0));
    await roomy.create('s1', session('bob', 1));
    expect(await roomy.deleteByUser('alice')).toBe(0);
    expect(await roomy.get('s1', 2)).toMatchObject({ userId: 'bob' });
    expect(roomy.size).toBe(1);
  });

  it('hands out copies', async () => {
    const store = new MemorySessionStore();
    const input = session('alice', 0);
    await store.create('s1', input);
    input.amr.push('mfa');
    const found = await store.get('s1', 1);
    found?.amr.push('fed');
    if (found) found.userId = 'mallory';
    expect(await store.get('s1', 1)).toEqual(session('alice', 0));
  });

  it('refuses bad options with a TypeError', () => {
    expect(() => new MemorySessionStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});

describe('MemoryRefreshTokenStore bounds', () => {
  it('when full, sweeps expired tokens first, then evicts the oldest', async () => {
    const store = new MemoryRefreshTokenStore({ maxEntries: 3 });
    await store.create('expired', refreshToken('u1', 'f1', 0, MINUTE));
    await store.create('a', refreshToken('u2', 'f2', 1));
    await store.create('b', refreshToken('u3', 'f3', 2));
    await store.create('c', refreshToken('u4', 'f4', MINUTE));
    expect(store.size).toBe(3);
    expect(await store.get('a', MINUTE)).toBeDefined();
    await store.create('d', refreshToken('u5', 'f5', MINUTE + 1));
    // Nothing expired: the oldest goes, and refreshes no more.
    expect(await store.get('a', MINUTE + 2)).toBeUndefined();
    expect(await store.markUsed('a', MINUTE + 2)).toBe(false);
    for (const kept of ['b', 'c', 'd']) expect(await store.get(kept, MINUTE + 2)).toBeDefined();
  });

  it('revoking after an eviction neither resurrects the evicted token nor touches a new token under its hash', async () => {
    const store = new MemoryRefreshTokenStore({ maxEntries: 1 });
    await store.create('t1', refreshToken('alice', 'alice-family', 0));
    await store.create('t2', refreshToken('bob', 'bob-family', 1)); // evicts t1
    await store.revokeFamily('alice-family', 2, 2 + MINUTE);
    await store.revokeUser('alice', 2);
    expect(await store.get('t1', 3)).toBeUndefined();
    await store.create('t1', refreshToken('carol', 'carol-family', 3)); // evicts t2, reuses t1's hash
    await store.revokeFamily('bob-family', 4, 4 + MINUTE);
    await store.revokeUser('bob', 4);
    await store.revokeUser('alice', 4);
    expect(await store.get('t1', 5)).toEqual(refreshToken('carol', 'carol-family', 3));
    expect(await store.markUsed('t1', 5)).toBe(true);
  });

  it('forgets a replaced token in the family and user indexes', async () => {
    const store = new MemoryRefreshTokenStore();
    await store.create('t1', refreshToken('alice', 'f1', 0));
    await store.create('t1', refreshToken('bob', 'f2', 1));
    await store.revokeFamily('f1', 2, 2 + MINUTE);
    await store.revokeUser('alice', 2);
    expect((await store.get('t1', 3))?.revokedAt).toBeUndefined();
    expect(store.size).toBe(1);
  });

  it('keeps at most maxEntries family marks, dropping ended ones first, then the oldest', async () => {
    const store = new MemoryRefreshTokenStore({ maxEntries: 2 });
    await store.revokeFamily('ended', 0, MINUTE);
    await store.revokeFamily('f1', 1, 10 * MINUTE);
    await store.revokeFamily('f2', MINUTE, 10 * MINUTE); // sweeps 'ended'
    await store.create('in-f1', refreshToken('u', 'f1', MINUTE + 1));
    expect(await store.markUsed('in-f1', MINUTE + 2)).toBe(false);
    await store.revokeFamily('f3', MINUTE + 3, 10 * MINUTE); // drops f1's mark, the oldest
    await store.create('in-f2', refreshToken('u', 'f2', MINUTE + 4));
    expect(await store.markUsed('in-f2', MINUTE + 5)).toBe(false);
    await store.create('late-in-f1', refreshToken('u', 'f1', MINUTE + 6));
    expect(await store.markUsed('late-in-f1', MINUTE + 7)).toBe(true);
  });

  it('hands out copies', async () => {
    const store = new MemoryRefreshTokenStore();
    const input = refreshToken('alice', 'f1', 0);
    await store.create('t1', input);
    input.amr.push('mfa');
    input.revokedAt = 1;
    const found = await store.get('t1', 1);
    found?.amr.push('fed');
    if (found) found.usedAt = 1;
    expect(await store.get('t1', 2)).toEqual(refreshToken('alice', 'f1', 0));
    expect(await store.markUsed('t1', 2)).toBe(true);
  });

  it('refuses bad options with a TypeError', () => {
    expect(() => new MemoryRefreshTokenStore({ maxEntries: -1 })).toThrow(TypeError);
  });
});

describe('MemoryOneTimeTokenStore bounds', () => {
  it('when full, sweeps expired tokens first, then evicts the oldest', async () => {
    const store = new MemoryOneTimeTokenStore({ maxEntries: 3 });
    await store.create('expired', oneTimeToken('u1', 0, MINUTE));
    await store.create('a', oneTimeToken('u2', 1));
    await store.create('b', oneTimeToken('u3', 2));
    await store.create('c', oneTimeToken('u4', MINUTE));
    expect(store.size).toBe(3);
    await store.create('d', oneTimeToken('u5', MINUTE + 1));
    expect(await store.consume('a', 'reset-password', MINUTE + 2)).toBeUndefined();
    for (const kept of ['b', 'c', 'd']) {
      expect(await store.consume(kept, 'reset-password', MINUTE + 2), kept).toBeDefined();
    }
  });

  it('frees the slot of a consumed token', async () => {
    const store = new MemoryOneTimeTokenStore({ maxEntries: 2 });
    await store.create('a', oneTimeToken('u1', 0));
    await store.create('b', oneTimeToken('u2', 1));
    await store.consume('a', 'reset-password', 2);
    expect(store.size).toBe(1);
    await store.create('c', oneTimeToken('u3', 3));
    expect(await store.consume('b', 'reset-password', 4)).toBeDefined();
  });

  it('forgets an evicted token in the per-user index', async () => {
    const store = new MemoryOneTimeTokenStore({ maxEntries: 1 });
    await store.create('t1', oneTimeToken('alice', 0));
    await store.create('t2', oneTimeToken('bob', 1)); // evicts t1
    await store.create('t1', oneTimeToken('carol', 2)); // evicts t2, reuses t1's hash
    await store.deleteByUser('alice', 'reset-password');
    expect(await store.consume('t1', 'reset-password', 3)).toMatchObject({ userId: 'carol' });
  });

  it('hands out copies', async () => {
    const store = new MemoryOneTimeTokenStore();
    const input = oneTimeToken('alice', 0);
    await store.create('t1', input);
    input.purpose = 'verify-email';
    input.usedAt = 1;
    expect(await store.consume('t1', 'reset-password', 2)).toEqual({
      ...oneTimeToken('alice', 0),
      usedAt: 2,
    });
  });

  it('refuses bad options with a TypeError', () => {
    expect(() => new MemoryOneTimeTokenStore({ maxEntries: 2.5 })).toThrow(TypeError);
  });
});
