// The API-key service's rules on the in-memory store with a hand-moved clock: the key's form and that only its
// SHA-256 is kept; what verify answers for a malformed, unknown, expired or revoked key; listings without
// expired keys; what issue refuses (scopes not offered, repeated or missing, an expiry not in the future, a
// long name, an owner at the limit); lastUsedAt written once a minute at most, a failed write only logged; and
// the options the constructor refuses.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryApiKeyStore } from '../../runtime/auth/apikeys/memory-store.js';
import { ApiKeys, type ApiKeyInput, type ApiKeysOptions } from '../../runtime/auth/apikeys/service.js';
import type { ApiKeyStore } from '../../runtime/auth/apikeys/store.js';
import { OptionError } from '../../runtime/config/option-errors.js';
import { RequestValidationError } from '../../runtime/http/http-errors.js';
import { collectingLogger } from '../../runtime/log/collecting-logger.js';
import { fakeClock } from './contracts/fake-clock.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const SCOPES = ['reports:read', 'reports:write'];
const ALICE: ApiKeyInput = { name: 'CI', scopes: ['reports:read'], userId: 'alice', tenantId: 'acme' };

/** The memory store, counting the lastUsedAt writes it is asked for. */
class CountingStore extends MemoryApiKeyStore {
  touches: { id: string; at: number }[] = [];

  override async touch(id: string, at: number): Promise<void> {
    this.touches.push({ id, at });
    return super.touch(id, at);
  }
}

function service(options: ApiKeysOptions = {}) {
  const clock = fakeClock(T0);
  const store = new CountingStore();
  const keys = new ApiKeys({ store, scopes: SCOPES, clock: clock.now, ...options });
  return { keys, store, clock };
}

/** Lets the work verify started without waiting for (a lastUsedAt write) finish. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The status and code an error carries, or 'no error'. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    const { status, code } = error as { status?: number; code?: string };
    return `${status} ${code}`;
  }
}

/** The paths of the issues issue refused `input` with. */
async function refusedPaths(keys: ApiKeys, input: ApiKeyInput): Promise<string[]> {
  const error = await keys.issue(input).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RequestValidationError);
  const refused = error as RequestValidationError;
  expect(refused.status).toBe(400);
  expect(refused.part).toBe('body');
  return refused.issues.map((issue) => issue.path);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

describe('ApiKeys: issuing', () => {
  it('issues mk_live_ and 43 base64url characters, a different key each time', async () => {
    const { keys } = service();
    const first = await keys.issue(ALICE);
    const second = await keys.issue(ALICE);
    expect(first.key).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
    expect(second.key).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
    expect(second.key).not.toBe(first.key);
    expect(second.record.id).not.toBe(first.record.id);
    expect(first.record).toStrictEqual({
      id: first.record.id,
      name: 'CI',
      start: first.key.slice(0, 12),
      last4: first.key.slice(-4),
      scopes: ['reports:read'],
      tenantId: 'acme',
      userId: 'alice',
      createdAt: T0,
      expiresAt: undefined,
      lastUsedAt: undefined,
    });
  });

  it('stores only the SHA-256 of the key: no stored field holds the key or its secret part', async () => {
    const { keys, store } = service();
    const { key, record } = await keys.issue(ALICE);
    const stored = (await store.get(record.id))!;
    expect(stored.hash).toBe(sha256(key));
    expect(await store.findByHash(sha256(key))).toStrictEqual(stored);
    const secret = key.slice('mk_live_'.length);
    for (const value of Object.values(stored).flat()) {
      expect(String(value)).not.toContain(key);
      expect(String(value)).not.toContain(secret);
    }
    // Nor does the hash leave the service.
    expect(record).not.toHaveProperty('hash');
    expect((await keys.get(record.id))!).not.toHaveProperty('hash');
    expect((await keys.list())[0]).not.toHaveProperty('hash');
  });

  it('refuses scopes the service does not offer, naming each by its path; "*" too unless offered', async () => {
    const { keys } = service();
    expect(await refusedPaths(keys, { ...ALICE, scopes: ['reports:delete'] })).toEqual(['scopes.0']);
    expect(await refusedPaths(keys, { ...ALICE, scopes: ['reports:read', '*'] })).toEqual(['scopes.1']);
    expect(await refusedPaths(keys, { ...ALICE, scopes: ['reports:read', 42 as never] })).toEqual([
      'scopes.1',
    ]);
    expect(await keys.list()).toEqual([]);
    // Offered, '*' is a scope like any other.
    const all = service({ scopes: ['*', 'reports:read'] }).keys;
    expect((await all.issue({ ...ALICE, scopes: ['*'] })).record.scopes).toEqual(['*']);
  });

  it('refuses a repeated scope and an empty or missing list of scopes', async () => {
    const { keys } = service();
    const repeated = ['reports:read', 'reports:write', 'reports:read'];
    expect(await refusedPaths(keys, { ...ALICE, scopes: repeated })).toEqual(['scopes.2']);
    expect(await refusedPaths(keys, { ...ALICE, scopes: [] })).toEqual(['scopes']);
    expect(await refusedPaths(keys, { ...ALICE, scopes: undefined as never })).toEqual(['scopes']);
    expect(await keys.list()).toEqual([]);
  });

  it('refuses an expiresAt now or in the past, or not a whole number; takes one a millisecond ahead', async () => {
    const { keys } = service();
    expect(await refusedPaths(keys, { ...ALICE, expiresAt: T0 })).toEqual(['expiresAt']);
    expect(await refusedPaths(keys, { ...ALICE, expiresAt: T0 - 1 })).toEqual(['expiresAt']);
    expect(await refusedPaths(keys, { ...ALICE, expiresAt: T0 + 0.5 })).toEqual(['expiresAt']);
    expect(await refusedPaths(keys, { ...ALICE, expiresAt: String(T0 + 1) as never })).toEqual(['expiresAt']);
    expect((await keys.issue({ ...ALICE, expiresAt: T0 + 1 })).record.expiresAt).toBe(T0 + 1);
  });

  it('refuses a name over 100 characters; takes 100, and no name as ""', async () => {
    const { keys } = service();
    expect(await refusedPaths(keys, { ...ALICE, name: 'n'.repeat(101) })).toEqual(['name']);
    expect((await keys.issue({ ...ALICE, name: 'n'.repeat(100) })).record.name).toBe('n'.repeat(100));
    expect((await keys.issue({ scopes: ['reports:read'] })).record.name).toBe('');
  });

  it('reports every refused field at once', async () => {
    const { keys } = service();
    const paths = await refusedPaths(keys, {
      name: 'n'.repeat(101),
      scopes: ['nope'],
      expiresAt: T0,
      userId: '',
    });
    expect(paths.sort()).toEqual(['expiresAt', 'name', 'scopes.0', 'userId']);
  });

  it('answers 409 AUTH_APIKEY_LIMIT_REACHED once an owner holds maxPerOwner live keys', async () => {
    const { keys, clock } = service({ maxPerOwner: 2 });
    const expiring = await keys.issue({ ...ALICE, expiresAt: T0 + MINUTE });
    await keys.issue(ALICE);
    expect(await codeOf(keys.issue(ALICE))).toBe('409 AUTH_APIKEY_LIMIT_REACHED');
    expect(await keys.list({ userId: 'alice' })).toHaveLength(2);
    // The same user in another tenant, or in none, is another owner.
    expect(await codeOf(keys.issue({ ...ALICE, tenantId: 'other' }))).toBe('no error');
    expect(await codeOf(keys.issue({ ...ALICE, tenantId: undefined }))).toBe('no error');
    // An expired key no longer counts; a revoked one neither.
    clock.advance(MINUTE);
    expect(await codeOf(keys.issue(ALICE))).toBe('no error');
    expect(await codeOf(keys.issue(ALICE))).toBe('409 AUTH_APIKEY_LIMIT_REACHED');
    const [oldest] = await keys.list({ userId: 'alice', tenantId: 'acme' });
    expect(oldest!.id).not.toBe(expiring.record.id);
    expect(await keys.revoke(oldest!.id)).toBe(true);
    expect(await codeOf(keys.issue(ALICE))).toBe('no error');
  });
});

describe('ApiKeys: verifying, listing, revoking', () => {
  it('verify answers a live key without its hash', async () => {
    const { keys } = service();
    const { key, record } = await keys.issue(ALICE);
    expect(await keys.verify(key)).toStrictEqual({ ok: true, key: record });
  });

  it('verify calls a value not of the key form malformed, without looking it up', async () => {
    const { keys, store } = service();
    const { key } = await keys.issue(ALICE);
    let lookups = 0;
    const findByHash = store.findByHash.bind(store);
    store.findByHash = (hash) => {
      lookups++;
      return findByHash(hash);
    };
    for (const presented of [
      '',
      'mk_live_',
      key.slice(0, -1),
      `${key}A`,
      `mk_test_${key.slice(8)}`,
      `Bearer ${key}`,
      `${key.slice(0, -1)}=`,
      ` ${key}`,
      undefined as never,
    ]) {
      expect(await keys.verify(presented), JSON.stringify(presented)).toStrictEqual({
        ok: false,
        reason: 'malformed',
      });
    }
    expect(lookups).toBe(0);
  });

  it('verify calls a well-formed key never issued unknown', async () => {
    const { keys } = service();
    const { key } = await keys.issue(ALICE);
    const other = `mk_live_${'A'.repeat(43)}`;
    expect(await keys.verify(other)).toStrictEqual({ ok: false, reason: 'unknown' });
    // One character changed is another key.
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    expect(await keys.verify(flipped)).toStrictEqual({ ok: false, reason: 'unknown' });
  });

  it('verify refuses a key as expired from expiresAt on, and never dates its use', async () => {
    const { keys, clock, store } = service();
    const { key } = await keys.issue({ ...ALICE, expiresAt: T0 + MINUTE });
    clock.advance(MINUTE - 1);
    expect((await keys.verify(key)).ok).toBe(true);
    clock.advance(1);
    expect(await keys.verify(key)).toStrictEqual({ ok: false, reason: 'expired' });
    clock.advance(MINUTE * 10);
    expect(await keys.verify(key)).toStrictEqual({ ok: false, reason: 'expired' });
    expect(store.touches).toHaveLength(1);
  });

  it('a revoked key is unknown from then on; revoking it again answers false', async () => {
    const { keys } = service();
    const { key, record } = await keys.issue(ALICE);
    expect(await keys.revoke(record.id)).toBe(true);
    expect(await keys.verify(key)).toStrictEqual({ ok: false, reason: 'unknown' });
    expect(await keys.get(record.id)).toBeUndefined();
    expect(await keys.revoke(record.id)).toBe(false);
  });

  it("revoke with an owner refuses another owner's key and keeps it working", async () => {
    const { keys } = service();
    const { key, record } = await keys.issue(ALICE);
    expect(await keys.revoke(record.id, { userId: 'mallory', tenantId: 'acme' })).toBe(false);
    expect(await keys.revoke(record.id, { userId: 'alice', tenantId: null })).toBe(false);
    expect((await keys.verify(key)).ok).toBe(true);
    expect(await keys.revoke(record.id, { userId: 'alice', tenantId: 'acme' })).toBe(true);
    expect((await keys.verify(key)).ok).toBe(false);
  });

  it('list leaves expired keys out from expiresAt on; get still answers them', async () => {
    const { keys, clock } = service();
    const expiring = await keys.issue({ ...ALICE, name: 'expiring', expiresAt: T0 + MINUTE });
    clock.advance(1);
    const lasting = await keys.issue({ ...ALICE, name: 'lasting' });
    expect((await keys.list({ userId: 'alice' })).map((key) => key.name)).toEqual(['expiring', 'lasting']);
    clock.advance(MINUTE - 1);
    expect(await keys.list({ userId: 'alice' })).toStrictEqual([lasting.record]);
    expect(await keys.get(expiring.record.id)).toStrictEqual(expiring.record);
  });
});

describe('ApiKeys: lastUsedAt', () => {
  it('is written on the first use, not again within a minute, and again after', async () => {
    const { keys, store, clock } = service();
    const { key, record } = await keys.issue(ALICE);
    expect(store.touches).toEqual([]);
    await keys.verify(key);
    await settle();
    expect(store.touches).toEqual([{ id: record.id, at: T0 }]);
    expect((await keys.get(record.id))?.lastUsedAt).toBe(T0);

    clock.advance(MINUTE - 1);
    await keys.verify(key);
    await keys.verify(key);
    await settle();
    expect(store.touches).toHaveLength(1);

    clock.advance(1);
    const used = await keys.verify(key);
    await settle();
    expect(store.touches).toEqual([
      { id: record.id, at: T0 },
      { id: record.id, at: T0 + MINUTE },
    ]);
    expect((await keys.get(record.id))?.lastUsedAt).toBe(T0 + MINUTE);
    // The answer shows the use recorded before this one: the write does not delay it.
    expect(used).toMatchObject({ ok: true, key: { lastUsedAt: T0 } });
  });

  it('follows lastUsedResolutionMs', async () => {
    const { keys, store, clock } = service({ lastUsedResolutionMs: 1000 });
    const { key } = await keys.issue(ALICE);
    await keys.verify(key);
    await settle();
    clock.advance(1000);
    await keys.verify(key);
    await settle();
    expect(store.touches).toHaveLength(2);
  });

  it('writes once per key while a write is under way, whatever the number of uses', async () => {
    const { keys, store } = service();
    const { key } = await keys.issue(ALICE);
    const other = await keys.issue(ALICE);
    let release: () => void = () => undefined;
    const pending = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    store.touch = async () => {
      calls++;
      await pending;
    };
    await Promise.all([keys.verify(key), keys.verify(key), keys.verify(key), keys.verify(other.key)]);
    expect(calls).toBe(2);
    release();
    await settle();
  });

  it('a failing write is logged and never fails verify', async () => {
    const logger = collectingLogger();
    const { keys, store } = service({ logger });
    const { key, record } = await keys.issue(ALICE);
    store.touch = () => Promise.reject(new Error('database down'));
    expect(await keys.verify(key)).toStrictEqual({ ok: true, key: record });
    await settle();
    expect(logger.at('warn')).toHaveLength(1);
    expect(logger.at('warn')[0]).toMatchObject({
      msg: 'API key last-use write failed',
      fields: { keyId: record.id, error: { message: 'database down' } },
    });
    // The next use tries again: a failed write leaves nothing stuck.
    expect((await keys.verify(key)).ok).toBe(true);
    await settle();
    expect(logger.at('warn')).toHaveLength(2);
  });

  it('logs through the app logger once attached, unless given its own', async () => {
    const { keys, store } = service();
    const app = collectingLogger();
    keys.logTo(app);
    const { key } = await keys.issue(ALICE);
    store.touch = () => Promise.reject(new Error('database down'));
    await keys.verify(key);
    await settle();
    expect(app.at('warn')).toHaveLength(1);
  });
});

describe('ApiKeys: options', () => {
  it('defaults: the memory store, scopes ["*"], 100 keys per owner', async () => {
    const keys = new ApiKeys();
    expect(keys.scopes).toEqual(['*']);
    expect(keys.maxPerOwner).toBe(100);
    const { key } = await keys.issue({ scopes: ['*'] });
    expect((await keys.verify(key)).ok).toBe(true);
  });

  it('refuses an unknown option', () => {
    expect(() => new ApiKeys({ scope: ['*'] } as never)).toThrow(OptionError);
    expect(() => new ApiKeys({ scope: ['*'] } as never)).toThrow(/scope/);
  });

  it('refuses scopes that are not a non-empty list of distinct scopes', () => {
    for (const scopes of [[], ['reports read'], ['reports:'], ['a', 'a'], 'reports:read', [1]]) {
      expect(() => new ApiKeys({ scopes: scopes as never }), JSON.stringify(scopes)).toThrow(OptionError);
    }
  });

  it('refuses a store missing a method, naming it', () => {
    const store = new MemoryApiKeyStore();
    const partial: Partial<ApiKeyStore> = {
      add: store.add.bind(store),
      findByHash: store.findByHash.bind(store),
      get: store.get.bind(store),
      list: store.list.bind(store),
      remove: store.remove.bind(store),
      removeByUser: store.removeByUser.bind(store),
    };
    expect(() => new ApiKeys({ store: partial as ApiKeyStore })).toThrow(/touch/);
    expect(() => new ApiKeys({ store: {} as ApiKeyStore })).toThrow(OptionError);
  });

  it('refuses a maxPerOwner or lastUsedResolutionMs that is not a positive whole number, and a bad clock', () => {
    for (const value of [0, -1, 1.5, '5']) {
      expect(() => new ApiKeys({ maxPerOwner: value as never })).toThrow(OptionError);
      expect(() => new ApiKeys({ lastUsedResolutionMs: value as never })).toThrow(OptionError);
    }
    expect(() => new ApiKeys({ clock: 5 as never })).toThrow(OptionError);
  });
});
