// API keys over HTTP on every adapter: a key presented as `Authorization: Bearer mk_…` or in x-api-key puts
// its user on the request; two different keys, or a key beside another user's credential, are 400
// AUTH_APIKEY_AMBIGUOUS; a malformed, unknown, revoked or orphaned key is 401 AUTH_TOKEN_INVALID, an expired
// one 401 AUTH_TOKEN_EXPIRED; `meta.scopes`, narrow keys on unscoped protected routes and `apiKey: false`; the
// key routes (create, list, revoke) refuse keys, stay per user, answer no-store and are never replayed; the
// per-owner limit under concurrency; keys and the MFA policy; the boot refusals. Tenancy: apikeys-tenancy.test.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiKeys,
  apiKeyPlugin,
  Auth,
  authPlugin,
  idempotencyPlugin,
  MemoryIdempotencyStore,
  MemoryUserSource,
  route,
  SESSION_ID_HEADER,
  tenancyPlugin,
  type ApiKeyPluginOptions,
  type ApiKeysOptions,
  type AuthPluginOptions,
  type AuthUser,
  type IdempotencyRecord,
  type Plugin,
  type Route,
} from 'svckit';
import { Secret, TOTP } from 'otpauth';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import { ALICE, bearer, codeOf, FAST_HASH, get, post, register, SECRET } from './auth-harness.js';
import { adapters, call, rawRequest, type AdapterUnderTest, type RunningServer } from './harness.js';

const T0 = Date.parse('2026-11-26T00:00:00Z');
const OFFERED = ['*', 'reports:read', 'reports:write'];

const appRoutes: Route[] = [
  route({
    method: 'GET',
    url: '/whoami',
    meta: { auth: true },
    handler: ({ context }) => ({ user: context.user, apiKey: context.apiKey ?? null }),
  }),
  route({
    method: 'GET',
    url: '/reports',
    meta: { scopes: ['reports:read'] },
    handler: ({ context }) => ({ user: context.user ?? null }),
  }),
  route({
    method: 'POST',
    url: '/reports',
    meta: { auth: true, scopes: ['reports:write'] },
    handler: ({ context }) => ({ writtenBy: (context.user as { id: string }).id }),
  }),
  route({
    method: 'GET',
    url: '/open',
    meta: {},
    handler: ({ context }) => ({ user: context.user ?? null }),
  }),
  route({
    method: 'GET',
    url: '/sign-in-only',
    meta: { auth: true, apiKey: false },
    handler: () => ({ ok: true }),
  }),
  route({
    method: 'POST',
    url: '/step-up',
    meta: { auth: true, mfa: true },
    handler: () => ({ ok: true }),
  }),
];

/** A user source whose accounts can be deleted: what a key of a deleted account meets. */
class DeletableUsers extends MemoryUserSource {
  private readonly deleted = new Set<string>();
  delete(id: string): void {
    this.deleted.add(id);
  }
  override async findById(id: string): Promise<AuthUser | null> {
    return this.deleted.has(id) ? null : super.findById(id);
  }
}

/** The memory idempotency store, remembering every body it was asked to keep. */
class KeptBodies extends MemoryIdempotencyStore {
  readonly bodies: string[] = [];
  override complete(key: string, record: IdempotencyRecord) {
    this.bodies.push(record.body);
    return super.complete(key, record);
  }
}

interface KeyServer {
  url: string;
  /** What the idempotency store was asked to keep. */
  kept: KeptBodies;
  auth: Auth;
  users: DeletableUsers;
  events: { name: string; payload: unknown }[];
  advance(ms: number): void;
  close(): Promise<void>;
}

interface KeyServerOptions {
  keys?: Omit<ApiKeysOptions, 'clock'>;
  plugin?: Omit<ApiKeyPluginOptions, 'auth'>;
  authPlugin?: Omit<AuthPluginOptions, 'auth'>;
  /** Two-factor sign-in on the Auth (needed by `requireMfa`). */
  mfa?: boolean;
}

function recordKeyEvents(events: KeyServer['events']): Plugin {
  return {
    name: 'record-key-events',
    setup(app) {
      for (const name of ['auth:apikey_issued', 'auth:apikey_revoked'] as const)
        app.hooks.on(name, (payload) => void events.push({ name, payload }));
    },
  };
}

/** authPlugin, apiKeyPlugin and idempotencyPlugin over `appRoutes`, the Auth and its keys on one fake clock. */
async function startKeyServer(adapter: AdapterUnderTest, options: KeyServerOptions = {}): Promise<KeyServer> {
  let now = T0;
  const clock = () => now;
  const users = new DeletableUsers();
  const mfa = options.mfa
    ? new MfaService({
        store: new MemoryMfaStore(),
        box: new SecretBox({ keys: [{ id: 'k1', material: randomBytes(32) }] }),
        issuer: 'Keys',
        users,
        clock,
      })
    : undefined;
  const auth = new Auth({
    secret: SECRET,
    passwordHash: FAST_HASH,
    clock,
    users,
    apiKeys: new ApiKeys({ scopes: OFFERED, clock, ...options.keys }),
    ...(mfa === undefined ? {} : { mfa }),
  });
  const events: KeyServer['events'] = [];
  const kept = new KeptBodies();
  const server: RunningServer = await adapter.start({
    routes: appRoutes,
    plugins: [
      authPlugin({ auth, ...options.authPlugin }),
      apiKeyPlugin({ auth, ...options.plugin }),
      idempotencyPlugin({ store: kept }),
      recordKeyEvents(events),
    ],
  });
  return {
    url: server.url,
    kept,
    auth,
    users,
    events,
    advance: (ms) => void (now += ms),
    close: server.close,
  };
}

async function withKeyServer(
  adapter: AdapterUnderTest,
  options: KeyServerOptions,
  body: (server: KeyServer) => Promise<void>,
): Promise<void> {
  const server = await startKeyServer(adapter, options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

let accounts = 0;
/** A fresh account on the server: its id, access token and session id. */
async function account(url: string) {
  const signed = await register(url, { email: `user${++accounts}@example.com`, password: ALICE.password });
  return { id: signed.user.id, token: signed.accessToken, session: signed.session };
}

interface CreatedKey {
  key: string;
  record: { id: string; scopes: string[]; expiresAt?: number; tenantId?: string };
}

/** POST /apikeys as the holder of `token`; asserts 201. */
async function createKey(url: string, token: string, body: Record<string, unknown>): Promise<CreatedKey> {
  const created = await post(url, '/apikeys', body, bearer(token));
  expect(created.status, created.text).toBe(201);
  return created.json as CreatedKey;
}

const keyHeader = (key: string) => ({ 'x-api-key': key });
const status = (response: { status: number; json: unknown }) => [response.status, codeOf(response.json)];
const del = (url: string, path: string, headers: Record<string, string>) =>
  call(`${url}${path}`, { method: 'DELETE', headers });
const listedIds = async (url: string, token: string) => {
  const listed = await get(url, '/apikeys', bearer(token));
  expect(listed.status, listed.text).toBe(200);
  return (listed.json as { keys: { id: string }[] }).keys.map((key) => key.id);
};

describe.each(adapters)('API keys on $name', (adapter) => {
  let server: KeyServer;
  beforeAll(async () => {
    server = await startKeyServer(adapter);
  });
  afterAll(() => server.close());

  describe('presenting a key', () => {
    it('creates a key shown once, and the key acts as its owner in x-api-key or Authorization: Bearer', async () => {
      const { url } = server;
      const owner = await account(url);
      const created = await post(
        url,
        '/apikeys',
        { name: 'ci', scopes: ['reports:read'] },
        bearer(owner.token),
      );
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      const { key, record } = created.json as CreatedKey & { record: Record<string, unknown> };
      expect(key).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({ name: 'ci', scopes: ['reports:read'], start: key.slice(0, 12) });
      expect(record).not.toHaveProperty('hash');
      expect(JSON.stringify(record)).not.toContain(key.slice(8));

      for (const headers of [keyHeader(key), bearer(key), { ...keyHeader(key), ...bearer(key) }]) {
        const read = await get(url, '/reports', headers);
        expect(read.status, read.text).toBe(200);
        expect((read.json as { user: { id: string } }).user.id).toBe(owner.id);
      }
      // The same key repeated in the header is one key.
      const repeated = await rawRequest(url, {
        method: 'GET',
        path: '/reports',
        headers: { 'x-api-key': [key, key] } as unknown as Record<string, string>,
      });
      expect(repeated.status, repeated.body).toBe(200);
    });

    it('a * key acts on unscoped auth routes as its owner, with its key on the context', async () => {
      const { url } = server;
      const owner = await account(url);
      const { key, record } = await createKey(url, owner.token, { scopes: ['*'] });
      const me = await get(url, '/whoami', bearer(key));
      expect(me.status, me.text).toBe(200);
      expect(me.json).toMatchObject({ user: { id: owner.id }, apiKey: { id: record.id, scopes: ['*'] } });
      expect((await post(url, '/reports', {}, keyHeader(key))).status).toBe(200);
    });

    it('two different keys, in the two places or in a repeated header, are 400 AUTH_APIKEY_AMBIGUOUS', async () => {
      const { url } = server;
      const owner = await account(url);
      const first = await createKey(url, owner.token, { scopes: ['*'] });
      const second = await createKey(url, owner.token, { scopes: ['*'] });
      const both = await get(url, '/reports', { ...bearer(first.key), ...keyHeader(second.key) });
      expect(status(both)).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
      const repeated = await rawRequest(url, {
        method: 'GET',
        path: '/open',
        headers: { 'x-api-key': [first.key, second.key] } as unknown as Record<string, string>,
      });
      expect(repeated.status, repeated.body).toBe(400);
      expect(codeOf(JSON.parse(repeated.body))).toBe('AUTH_APIKEY_AMBIGUOUS');
      const joined = await get(url, '/open', { 'x-api-key': `${first.key}, ${second.key}` });
      expect(status(joined)).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
    });

    it("a key beside another user's bearer token or session is 400 AUTH_APIKEY_AMBIGUOUS; beside its owner's, fine", async () => {
      const { url } = server;
      const alice = await account(url);
      const bob = await account(url);
      const { key: bobsKey } = await createKey(url, bob.token, { scopes: ['*'] });
      const withToken = await get(url, '/whoami', { ...bearer(alice.token), ...keyHeader(bobsKey) });
      expect(status(withToken)).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
      const withSession = await get(url, '/whoami', {
        [SESSION_ID_HEADER]: alice.session,
        ...keyHeader(bobsKey),
      });
      expect(status(withSession)).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
      const cookie = { cookie: `svc_session=${encodeURIComponent(alice.session)}`, ...keyHeader(bobsKey) };
      expect(status(await get(url, '/whoami', cookie))).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
      const own = await get(url, '/whoami', { ...bearer(bob.token), ...keyHeader(bobsKey) });
      expect(own.status, own.text).toBe(200);
      expect((own.json as { user: { id: string } }).user.id).toBe(bob.id);
    });

    it("a key in Authorization: Bearer beside another user's session header or cookie is 400 AUTH_APIKEY_AMBIGUOUS", async () => {
      const { url } = server;
      const alice = await account(url);
      const bob = await account(url);
      const { key: bobsKey } = await createKey(url, bob.token, { scopes: ['*'] });
      const withSession = await get(url, '/whoami', {
        ...bearer(bobsKey),
        [SESSION_ID_HEADER]: alice.session,
      });
      expect.soft(status(withSession), withSession.text).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
      const cookie = `svc_session=${encodeURIComponent(alice.session)}`;
      const withCookie = await get(url, '/whoami', { ...bearer(bobsKey), cookie });
      expect.soft(status(withCookie), withCookie.text).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
    });

    it('a malformed, unknown or revoked key is 401 AUTH_TOKEN_INVALID, even on a public route', async () => {
      const { url } = server;
      const owner = await account(url);
      const { key, record } = await createKey(url, owner.token, { scopes: ['*'] });
      const unknown = `mk_live_${randomBytes(32).toString('base64url')}`;
      for (const presented of ['mk_live_short', 'mk_garbage', unknown, `${key.slice(0, -1)}x`]) {
        for (const headers of [keyHeader(presented), bearer(presented)]) {
          expect(status(await get(url, '/open', headers)), presented).toEqual([401, 'AUTH_TOKEN_INVALID']);
        }
      }
      expect((await get(url, '/open', keyHeader(key))).status).toBe(200);
      expect((await del(url, `/apikeys/${record.id}`, bearer(owner.token))).status).toBe(204);
      expect(status(await get(url, '/whoami', keyHeader(key)))).toEqual([401, 'AUTH_TOKEN_INVALID']);
      expect(status(await get(url, '/open', bearer(key)))).toEqual([401, 'AUTH_TOKEN_INVALID']);
    });

    it('an expired key is 401 AUTH_TOKEN_EXPIRED and left out of the list', async () => {
      const { url, advance } = server;
      const owner = await account(url);
      const expiring = await createKey(url, owner.token, { scopes: ['*'], expiresAt: T0 + 60_000 });
      const lasting = await createKey(url, owner.token, { scopes: ['*'] });
      expect((await get(url, '/whoami', keyHeader(expiring.key))).status).toBe(200);
      expect(await listedIds(url, owner.token)).toEqual([expiring.record.id, lasting.record.id]);
      advance(60_000);
      expect(status(await get(url, '/whoami', keyHeader(expiring.key)))).toEqual([401, 'AUTH_TOKEN_EXPIRED']);
      expect(status(await get(url, '/open', bearer(expiring.key)))).toEqual([401, 'AUTH_TOKEN_EXPIRED']);
      expect(await listedIds(url, owner.token)).toEqual([lasting.record.id]);
      expect((await get(url, '/whoami', keyHeader(lasting.key))).status).toBe(200);
    });

    it('a key whose user was deleted is 401 AUTH_TOKEN_INVALID', async () => {
      const { url, users } = server;
      const owner = await account(url);
      const { key } = await createKey(url, owner.token, { scopes: ['*'] });
      users.delete(owner.id);
      expect(status(await get(url, '/whoami', keyHeader(key)))).toEqual([401, 'AUTH_TOKEN_INVALID']);
      expect(status(await get(url, '/open', keyHeader(key)))).toEqual([401, 'AUTH_TOKEN_INVALID']);
    });
  });

  describe('guard rules', () => {
    it('meta.scopes: a key needs them, a signed-in user passes, an anonymous caller is 401 AUTH_REQUIRED', async () => {
      const { url } = server;
      const owner = await account(url);
      const { key: reader } = await createKey(url, owner.token, { scopes: ['reports:read'] });
      expect((await get(url, '/reports', keyHeader(reader))).status).toBe(200);
      expect(status(await post(url, '/reports', {}, keyHeader(reader)))).toEqual([
        403,
        'AUTH_SCOPE_REQUIRED',
      ]);
      expect((await post(url, '/reports', {}, bearer(owner.token))).status).toBe(200);
      expect((await get(url, '/reports', bearer(owner.token))).status).toBe(200);
      expect(status(await get(url, '/reports'))).toEqual([401, 'AUTH_REQUIRED']);
      expect(status(await post(url, '/reports', {}))).toEqual([401, 'AUTH_REQUIRED']);
    });

    it('a narrow key is 403 AUTH_SCOPE_REQUIRED on an auth route without scopes; routes protecting nothing take it', async () => {
      const { url } = server;
      const owner = await account(url);
      const { key } = await createKey(url, owner.token, { scopes: ['reports:read', 'reports:write'] });
      expect(status(await get(url, '/whoami', keyHeader(key)))).toEqual([403, 'AUTH_SCOPE_REQUIRED']);
      expect(status(await get(url, '/whoami', bearer(key)))).toEqual([403, 'AUTH_SCOPE_REQUIRED']);
      const open = await get(url, '/open', keyHeader(key));
      expect(open.status).toBe(200);
      expect((open.json as { user: { id: string } }).user.id).toBe(owner.id);
    });

    it('apiKey: false refuses every key with 403 AUTH_APIKEY_NOT_ALLOWED, a sign-in passes', async () => {
      const { url } = server;
      const owner = await account(url);
      const { key } = await createKey(url, owner.token, { scopes: ['*'] });
      expect(status(await get(url, '/sign-in-only', keyHeader(key)))).toEqual([
        403,
        'AUTH_APIKEY_NOT_ALLOWED',
      ]);
      expect(status(await get(url, '/sign-in-only', bearer(key)))).toEqual([403, 'AUTH_APIKEY_NOT_ALLOWED']);
      expect((await get(url, '/sign-in-only', bearer(owner.token))).status).toBe(200);
    });
  });

  describe('the key routes', () => {
    it('a key can never create, list or revoke keys: 403 AUTH_APIKEY_NOT_ALLOWED', async () => {
      const { url, events } = server;
      const owner = await account(url);
      const { key, record } = await createKey(url, owner.token, { scopes: ['*'] });
      const before = events.length;
      for (const headers of [keyHeader(key), bearer(key)]) {
        expect(status(await post(url, '/apikeys', { scopes: ['*'] }, headers))).toEqual([
          403,
          'AUTH_APIKEY_NOT_ALLOWED',
        ]);
        expect(status(await get(url, '/apikeys', headers))).toEqual([403, 'AUTH_APIKEY_NOT_ALLOWED']);
        expect(status(await del(url, `/apikeys/${record.id}`, headers))).toEqual([
          403,
          'AUTH_APIKEY_NOT_ALLOWED',
        ]);
      }
      expect(events.length).toBe(before);
      expect(await listedIds(url, owner.token)).toEqual([record.id]);
      expect(status(await get(url, '/apikeys'))).toEqual([401, 'AUTH_REQUIRED']);
      expect(status(await post(url, '/apikeys', { scopes: ['*'] }))).toEqual([401, 'AUTH_REQUIRED']);
    });

    it("lists the caller's keys only; revoking another user's key is 404 AUTH_APIKEY_NOT_FOUND and it keeps working", async () => {
      const { url } = server;
      const alice = await account(url);
      const bob = await account(url);
      const alices = await createKey(url, alice.token, { scopes: ['*'] });
      const bobs = await createKey(url, bob.token, { scopes: ['*'] });
      expect(await listedIds(url, alice.token)).toEqual([alices.record.id]);
      expect(await listedIds(url, bob.token)).toEqual([bobs.record.id]);
      const before = server.events.length;
      const foreign = await del(url, `/apikeys/${bobs.record.id}`, bearer(alice.token));
      expect(status(foreign)).toEqual([404, 'AUTH_APIKEY_NOT_FOUND']);
      expect(server.events.length).toBe(before);
      expect((await get(url, '/whoami', keyHeader(bobs.key))).status).toBe(200);
      const missing = await del(url, `/apikeys/${randomUUID()}`, bearer(alice.token));
      expect(status(missing)).toEqual([404, 'AUTH_APIKEY_NOT_FOUND']);
      expect((await del(url, `/apikeys/${alices.record.id}`, bearer(alice.token))).status).toBe(204);
      expect(status(await del(url, `/apikeys/${alices.record.id}`, bearer(alice.token)))).toEqual([
        404,
        'AUTH_APIKEY_NOT_FOUND',
      ]);
      expect(await listedIds(url, alice.token)).toEqual([]);
    });

    it('issuing and revoking emit auth:apikey_issued and auth:apikey_revoked, never with the plain key', async () => {
      const { url, events } = server;
      const owner = await account(url);
      const before = events.length;
      const { key, record } = await createKey(url, owner.token, { scopes: ['*'] });
      expect((await del(url, `/apikeys/${record.id}`, bearer(owner.token))).status).toBe(204);
      const emitted = events.slice(before);
      expect(emitted.map((event) => event.name)).toEqual(['auth:apikey_issued', 'auth:apikey_revoked']);
      expect(JSON.stringify(emitted)).toContain(owner.id);
      expect(JSON.stringify(emitted)).not.toContain(key.slice(8));
    });

    it('the create answer is never replayed by idempotency: each keyed POST mints its own key', async () => {
      const { url } = server;
      const owner = await account(url);
      const headers = { ...bearer(owner.token), 'idempotency-key': 'same-key' };
      const first = await post(url, '/apikeys', { scopes: ['*'] }, headers);
      const second = await post(url, '/apikeys', { scopes: ['*'] }, headers);
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(second.headers.get('cache-control')).toBe('no-store');
      expect((first.json as CreatedKey).key).not.toBe((second.json as CreatedKey).key);
      for (const answer of [first, second]) {
        expect(server.kept.bodies.join('\n')).not.toContain((answer.json as CreatedKey).key);
      }
      expect(await listedIds(url, owner.token)).toHaveLength(2);
    });

    it('a body naming another user or tenant is refused: a caller mints keys for themselves only', async () => {
      const { url } = server;
      const alice = await account(url);
      const bob = await account(url);
      for (const extra of [{ userId: bob.id }, { tenantId: 'acme' }]) {
        const refused = await post(url, '/apikeys', { scopes: ['*'], ...extra }, bearer(alice.token));
        expect(status(refused)).toEqual([400, 'HTTP_VALIDATION']);
      }
      expect(await listedIds(url, bob.token)).toEqual([]);
      expect(await listedIds(url, alice.token)).toEqual([]);
    });

    it('the list shows when a key was last used, written at most once a minute', async () => {
      const { url, advance } = server;
      const owner = await account(url);
      const { key } = await createKey(url, owner.token, { scopes: ['*'] });
      const lastUsed = async () => {
        const listed = await get(url, '/apikeys', bearer(owner.token));
        return (listed.json as { keys: { lastUsedAt?: number }[] }).keys[0]?.lastUsedAt;
      };
      expect(await lastUsed()).toBeUndefined();
      const first = (await get(url, '/whoami', keyHeader(key))).status;
      expect(first).toBe(200);
      const at = await lastUsed();
      expect(at).toEqual(expect.any(Number));
      advance(30_000);
      await get(url, '/whoami', keyHeader(key));
      expect(await lastUsed()).toBe(at);
      advance(30_000);
      await get(url, '/whoami', keyHeader(key));
      expect(await lastUsed()).toBe((at as number) + 60_000);
    });

    it('scopes missing or not offered, and an expiry in the past, are 400 HTTP_VALIDATION with issues', async () => {
      const { url } = server;
      const owner = await account(url);
      const issuesOf = async (body: Record<string, unknown>) => {
        const refused = await post(url, '/apikeys', body, bearer(owner.token));
        expect(status(refused), refused.text).toEqual([400, 'HTTP_VALIDATION']);
        const { error } = refused.json as { error: { issues: { path: string }[] } };
        return error.issues.map((issue) => issue.path);
      };
      expect(await issuesOf({ scopes: ['billing:admin'] })).toEqual(['scopes.0']);
      expect(await issuesOf({ scopes: ['reports:read', 'reports:nuke'] })).toEqual(['scopes.1']);
      expect((await issuesOf({})).length).toBeGreaterThan(0);
      expect(await issuesOf({ scopes: ['*'], expiresAt: T0 - 1 })).toEqual(['expiresAt']);
      expect(await listedIds(url, owner.token)).toEqual([]);
    });
  });
});

describe.each(adapters)('API-key settings on $name', (adapter) => {
  it('allowNarrowKeysOnUnscopedRoutes lets a narrow key act on auth routes without scopes, not on scoped ones', async () => {
    await withKeyServer(adapter, { plugin: { allowNarrowKeysOnUnscopedRoutes: true } }, async ({ url }) => {
      const owner = await account(url);
      const { key } = await createKey(url, owner.token, { scopes: ['reports:read'] });
      const me = await get(url, '/whoami', keyHeader(key));
      expect(me.status, me.text).toBe(200);
      expect((me.json as { user: { id: string } }).user.id).toBe(owner.id);
      expect(status(await post(url, '/reports', {}, keyHeader(key)))).toEqual([403, 'AUTH_SCOPE_REQUIRED']);
    });
  });

  it('a custom header carries the key (x-api-key then means nothing), and keeps idempotency keys apart', async () => {
    await withKeyServer(adapter, { plugin: { header: 'x-service-key' } }, async ({ url }) => {
      const alice = await account(url);
      const bob = await account(url);
      const { key } = await createKey(url, alice.token, { scopes: ['*'] });
      const { key: bobsKey } = await createKey(url, bob.token, { scopes: ['*'] });
      expect((await get(url, '/whoami', { 'x-service-key': key })).status).toBe(200);
      expect(status(await get(url, '/whoami', keyHeader(key)))).toEqual([401, 'AUTH_REQUIRED']);
      const both = await get(url, '/whoami', { 'x-service-key': key, ...bearer(bobsKey) });
      expect(status(both)).toEqual([400, 'AUTH_APIKEY_AMBIGUOUS']);
      // Two holders of different keys under one idempotency key: each answer is their own, never a replay.
      const write = (presented: string) =>
        post(url, '/reports', {}, { 'x-service-key': presented, 'idempotency-key': 'shared' });
      expect((await write(key)).json).toEqual({ writtenBy: alice.id });
      const other = await write(bobsKey);
      expect(other.json).toEqual({ writtenBy: bob.id });
      expect(other.headers.get('idempotent-replayed')).toBeNull();
    });
  });

  it('maxPerOwner 5: 20 concurrent creates by one user are exactly 5 × 201 and 15 × 409', async () => {
    await withKeyServer(adapter, { keys: { maxPerOwner: 5 } }, async ({ url, events }) => {
      const owner = await account(url);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => post(url, '/apikeys', { scopes: ['*'] }, bearer(owner.token))),
      );
      const created = answers.filter((answer) => answer.status === 201);
      const refused = answers.filter((answer) => answer.status !== 201);
      expect(created).toHaveLength(5);
      expect(refused.map(status)).toEqual(
        Array.from({ length: 15 }, () => [409, 'AUTH_APIKEY_LIMIT_REACHED']),
      );
      const ids = await listedIds(url, owner.token);
      expect(ids).toHaveLength(5);
      expect(events.filter((event) => event.name === 'auth:apikey_issued')).toHaveLength(5);
      // A revoked key frees its place.
      expect((await del(url, `/apikeys/${ids[0]}`, bearer(owner.token))).status).toBe(204);
      await createKey(url, owner.token, { scopes: ['*'] });
    });
  });

  describe('MFA', () => {
    const totp = (secret: string, at: number) =>
      new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
        timestamp: at,
      });

    it('creating a key needs a sign-in with the second factor once MFA is enabled: 403 AUTH_MFA_REQUIRED', async () => {
      await withKeyServer(adapter, { mfa: true }, async ({ url, advance }) => {
        const email = `mfa${++accounts}@example.com`;
        const signed = await register(url, { email, password: ALICE.password });
        const enrolled = await post(url, '/auth/mfa/enroll', undefined, bearer(signed.accessToken));
        const { secret } = enrolled.json as { secret: string };
        const activated = await post(
          url,
          '/auth/mfa/activate',
          { code: totp(secret, T0) },
          bearer(signed.accessToken),
        );
        expect(activated.status, activated.text).toBe(200);
        const refused = await post(url, '/apikeys', { scopes: ['*'] }, bearer(signed.accessToken));
        expect(status(refused)).toEqual([403, 'AUTH_MFA_REQUIRED']);
        expect(await listedIds(url, signed.accessToken)).toEqual([]);
        advance(30_000);
        const login = await post(url, '/auth/login', {
          email,
          password: ALICE.password,
          mfaCode: totp(secret, T0 + 30_000),
        });
        expect(login.status, login.text).toBe(200);
        const mfaToken = (login.json as { accessToken: string }).accessToken;
        expect((await post(url, '/apikeys', { scopes: ['*'] }, bearer(mfaToken))).status).toBe(201);
      });
    });

    it('a key never passes step-up (meta.mfa: true): 403 AUTH_APIKEY_NOT_ALLOWED', async () => {
      await withKeyServer(adapter, {}, async ({ url }) => {
        const owner = await account(url);
        expect(status(await post(url, '/step-up', {}, bearer(owner.token)))).toEqual([
          403,
          'AUTH_MFA_REQUIRED',
        ]);
        const { key } = await createKey(url, owner.token, { scopes: ['*'] });
        expect(status(await post(url, '/step-up', {}, keyHeader(key)))).toEqual([
          403,
          'AUTH_APIKEY_NOT_ALLOWED',
        ]);
        expect(status(await post(url, '/step-up', {}, bearer(key)))).toEqual([
          403,
          'AUTH_APIKEY_NOT_ALLOWED',
        ]);
      });
    });

    it('a password reset revokes every key of the account, and only its keys', async () => {
      await withKeyServer(adapter, {}, async ({ url, auth }) => {
        const owner = await account(url);
        const other = await account(url);
        const mine = await createKey(url, owner.token, { scopes: ['*'] });
        const issuedInCode = await auth.apiKeys!.issue({
          scopes: ['*'],
          userId: owner.id,
          tenantId: 'team-a',
        });
        const theirs = await createKey(url, other.token, { scopes: ['*'] });
        let token = '';
        auth.hooks.on('auth:password_reset_requested', (payload) => void (token = payload.token));
        await post(url, '/auth/password/forgot', { email: `user${accounts - 1}@example.com` });
        expect(token).not.toBe('');
        const reset = await post(url, '/auth/password/reset', { token, password: 'a brand new password' });
        expect(reset.status, reset.text).toBe(200);
        expect(status(await get(url, '/whoami', keyHeader(mine.key)))).toEqual([401, 'AUTH_TOKEN_INVALID']);
        expect(await auth.apiKeys!.get(issuedInCode.record.id)).toBeUndefined();
        expect((await get(url, '/whoami', keyHeader(theirs.key))).status).toBe(200);
      });
    });

    it('key requests are not subject to requireMfa, while the same user signed in without MFA is refused', async () => {
      await withKeyServer(adapter, { mfa: true, authPlugin: { requireMfa: true } }, async ({ url, auth }) => {
        const owner = await account(url);
        expect(status(await get(url, '/whoami', bearer(owner.token)))).toEqual([
          403,
          'AUTH_MFA_ENROLLMENT_REQUIRED',
        ]);
        const { key } = await auth.apiKeys!.issue({ scopes: ['*'], userId: owner.id });
        const me = await get(url, '/whoami', keyHeader(key));
        expect(me.status, me.text).toBe(200);
        expect((me.json as { user: { id: string } }).user.id).toBe(owner.id);
      });
    });
  });
});

describe.each(adapters)('API-key boot refusals on $name', (adapter) => {
  const auth = () =>
    new Auth({ secret: SECRET, passwordHash: FAST_HASH, apiKeys: new ApiKeys({ scopes: OFFERED }) });
  const scoped = (scopes: string[]) =>
    route({ method: 'GET', url: '/scoped', meta: { scopes }, handler: () => ({ ok: true }) });

  it('a route with meta.scopes and no apiKeyPlugin does not boot (HTTP_UNGUARDED_ROUTE_META)', async () => {
    const withAuth = auth();
    await expect(
      adapter.start({ routes: [scoped(['reports:read'])], plugins: [authPlugin({ auth: withAuth })] }),
    ).rejects.toMatchObject({ name: 'UnguardedRouteMetaError', code: 'HTTP_UNGUARDED_ROUTE_META' });
  });

  it('meta.scopes naming a scope no key can hold does not boot (InvalidRouteMetaError)', async () => {
    const narrowAuth = new Auth({
      secret: SECRET,
      passwordHash: FAST_HASH,
      apiKeys: new ApiKeys({ scopes: ['reports:read'] }),
    });
    await expect(
      adapter.start({
        routes: [scoped(['billing:admin'])],
        plugins: [authPlugin({ auth: narrowAuth }), apiKeyPlugin({ auth: narrowAuth })],
      }),
    ).rejects.toMatchObject({ name: 'InvalidRouteMetaError', code: 'HTTP_INVALID_ROUTE_META' });
    // With `*` offered, any scope can be held.
    const wide = auth();
    const started = await adapter.start({
      routes: [scoped(['billing:admin'])],
      plugins: [authPlugin({ auth: wide }), apiKeyPlugin({ auth: wide })],
    });
    await started.close();
  });

  it('a key header another plugin reads (the tenant header, the idempotency key) does not boot', async () => {
    for (const [header, other] of [
      ['x-team', tenancyPlugin({ users: new MemoryUserSource(), header: 'x-team' })],
      ['Idempotency-Key', idempotencyPlugin()],
    ] as const) {
      const withAuth = auth();
      await expect(
        adapter.start({
          routes: [scoped(['reports:read'])],
          plugins: [authPlugin({ auth: withAuth }), apiKeyPlugin({ auth: withAuth, header }), other],
        }),
      ).rejects.toMatchObject({ code: 'OPTION_INVALID', message: expect.stringContaining('header') });
    }
  });

  it('the key page without the key routes it calls does not boot', async () => {
    const withAuth = auth();
    await expect(
      adapter.start({
        routes: [],
        plugins: [
          authPlugin({ auth: withAuth, routes: { omit: ['apiKeyCreate'] } }),
          apiKeyPlugin({ auth: withAuth, page: {} }),
        ],
      }),
    ).rejects.toMatchObject({ code: 'OPTION_INVALID', message: expect.stringContaining('apiKeyCreate') });
    const served = await adapter.start({
      routes: [],
      plugins: [authPlugin({ auth: withAuth }), apiKeyPlugin({ auth: withAuth, page: {} })],
    });
    const page = await call(`${served.url}/apikeys/ui`);
    expect(page.status).toBe(200);
    await served.close();
  });

  it('apiKeyPlugin registered before authPlugin does not boot (OPTION_INVALID)', async () => {
    const withAuth = auth();
    await expect(
      adapter.start({
        routes: [scoped(['reports:read'])],
        plugins: [apiKeyPlugin({ auth: withAuth }), authPlugin({ auth: withAuth })],
      }),
    ).rejects.toMatchObject({ code: 'OPTION_INVALID' });
  });
});
