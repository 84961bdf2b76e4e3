// API keys with tenancy over HTTP on every adapter: a key issued in a tenant acts only there (403
// AUTH_APIKEY_TENANT_MISMATCH on another tenant or none), a tenantless key only where no tenant is named
// unless allowTenantlessKeys; a key's membership is its user's current one; narrow keys on `can`/`teamRole`
// routes without scopes; the key routes list and revoke per tenant; apiKeyPlugin must precede tenancyPlugin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiKeys,
  apiKeyPlugin,
  Auth,
  authPlugin,
  route,
  tenancyPlugin,
  type ApiKeyPluginOptions,
  type Route,
} from 'svckit';
import { ALICE, bearer, codeOf, FAST_HASH, get, post, register, SECRET } from './auth-harness.js';
import { adapters, call, type AdapterUnderTest } from './harness.js';

const appRoutes: Route[] = [
  route({
    method: 'GET',
    url: '/team/notes',
    meta: { auth: true },
    handler: ({ context }) => ({ user: (context.user as { id: string }).id, tenant: context.tenant ?? null }),
  }),
  route({
    method: 'GET',
    url: '/team/reports',
    meta: { scopes: ['reports:read'] },
    handler: ({ context }) => ({ tenant: context.tenant ?? null }),
  }),
  route({
    method: 'DELETE',
    url: '/team/notes/:id',
    meta: { auth: true, can: 'notes:delete' },
    handler: ({ reply }) => void reply.status(204).send(),
  }),
  route({ method: 'GET', url: '/team/settings', meta: { teamRole: 'admin' }, handler: () => ({ ok: true }) }),
  route({ method: 'GET', url: '/open', meta: {}, handler: () => ({ ok: true }) }),
];

interface Member {
  id: string;
  token: string;
}

interface TeamServer {
  url: string;
  auth: Auth;
  /** Owns tenants A and B. */
  owner: Member;
  /** A member of A only. */
  member: Member;
  tenantA: string;
  tenantB: string;
  close(): Promise<void>;
}

let accounts = 0;

async function startTeamServer(
  adapter: AdapterUnderTest,
  plugin: Omit<ApiKeyPluginOptions, 'auth'> = {},
): Promise<TeamServer> {
  const auth = new Auth({
    secret: SECRET,
    passwordHash: FAST_HASH,
    apiKeys: new ApiKeys({ scopes: ['*', 'reports:read'] }),
  });
  const server = await adapter.start({
    routes: appRoutes,
    plugins: [
      authPlugin({ auth }),
      apiKeyPlugin({ auth, ...plugin }),
      tenancyPlugin({ users: auth.users, permissions: { 'notes:delete': ['owner', 'admin'] } }),
    ],
  });
  const { url } = server;
  try {
    const account = async (): Promise<Member> => {
      const signed = await register(url, {
        email: `team${++accounts}@example.com`,
        password: ALICE.password,
      });
      return { id: signed.user.id, token: signed.accessToken };
    };
    const owner = await account();
    const member = await account();
    const tenant = async (name: string) => {
      const created = await post(url, '/tenants', { name }, bearer(owner.token));
      expect(created.status, created.text).toBe(201);
      return (created.json as { id: string }).id;
    };
    const tenantA = await tenant('A');
    const tenantB = await tenant('B');
    const added = await post(
      url,
      `/tenants/${tenantA}/members`,
      { email: `team${accounts}@example.com`, role: 'member' },
      bearer(owner.token),
    );
    expect(added.status, added.text).toBe(201);
    return { url, auth, owner, member, tenantA, tenantB, close: server.close };
  } catch (error) {
    await server.close();
    throw error;
  }
}

const inTenant = (credential: Record<string, string>, tenantId?: string) => ({
  ...credential,
  ...(tenantId === undefined ? {} : { 'x-tenant-id': tenantId }),
});
const keyHeader = (key: string) => ({ 'x-api-key': key });
const status = (response: { status: number; json: unknown }) => [response.status, codeOf(response.json)];
const del = (url: string, path: string, headers: Record<string, string>) =>
  call(`${url}${path}`, { method: 'DELETE', headers });

interface CreatedKey {
  key: string;
  record: { id: string; tenantId?: string };
}

/** POST /apikeys as `who`, in `tenantId` or none; asserts 201. */
async function createKey(url: string, who: Member, scopes: string[], tenantId?: string): Promise<CreatedKey> {
  const created = await post(url, '/apikeys', { scopes }, inTenant(bearer(who.token), tenantId));
  expect(created.status, created.text).toBe(201);
  return created.json as CreatedKey;
}

async function listedIds(url: string, who: Member, tenantId?: string): Promise<string[]> {
  const listed = await get(url, '/apikeys', inTenant(bearer(who.token), tenantId));
  expect(listed.status, listed.text).toBe(200);
  return (listed.json as { keys: { id: string }[] }).keys.map((key) => key.id);
}

describe.each(adapters)('API keys and tenancy on $name', (adapter) => {
  let team: TeamServer;
  beforeAll(async () => {
    team = await startTeamServer(adapter);
  });
  afterAll(() => team.close());

  it('a key issued in tenant A acts in A with its user’s role, and is 403 AUTH_APIKEY_TENANT_MISMATCH on B or no tenant', async () => {
    const { url, owner, tenantA, tenantB } = team;
    const { key, record } = await createKey(url, owner, ['*'], tenantA);
    expect(record.tenantId).toBe(tenantA);
    const inA = await get(url, '/team/notes', inTenant(keyHeader(key), tenantA));
    expect(inA.status, inA.text).toBe(200);
    expect(inA.json).toEqual({ user: owner.id, tenant: { id: tenantA, role: 'owner' } });
    // The owner is a member of B too: the key's tenant, not the membership, refuses it.
    expect((await get(url, '/team/notes', inTenant(bearer(owner.token), tenantB))).status).toBe(200);
    for (const headers of [
      inTenant(keyHeader(key), tenantB),
      inTenant(bearer(key), tenantB),
      keyHeader(key),
    ]) {
      expect(status(await get(url, '/team/notes', headers))).toEqual([403, 'AUTH_APIKEY_TENANT_MISMATCH']);
    }
    expect(status(await get(url, '/open', keyHeader(key)))).toEqual([403, 'AUTH_APIKEY_TENANT_MISMATCH']);
  });

  it('a tenant named by the path counts as named: a key of A reaches /tenants/A/members, not B’s', async () => {
    const { url, owner, tenantA, tenantB } = team;
    const { key } = await createKey(url, owner, ['*'], tenantA);
    const members = await get(url, `/tenants/${tenantA}/members`, keyHeader(key));
    expect(members.status, members.text).toBe(200);
    const other = await get(url, `/tenants/${tenantB}/members`, keyHeader(key));
    expect(status(other)).toEqual([403, 'AUTH_APIKEY_TENANT_MISMATCH']);
    // An account route naming no tenant resolves none: the key of A is refused there too.
    expect(status(await post(url, '/tenants', { name: 'By key' }, keyHeader(key)))).toEqual([
      403,
      'AUTH_APIKEY_TENANT_MISMATCH',
    ]);
  });

  it('a tenantless key acts where no tenant is named and is 403 AUTH_APIKEY_TENANT_MISMATCH where one is', async () => {
    const { url, owner, tenantA } = team;
    const { key, record } = await createKey(url, owner, ['*']);
    expect(record).not.toHaveProperty('tenantId');
    const bare = await get(url, '/team/notes', keyHeader(key));
    expect(bare.status, bare.text).toBe(200);
    expect(bare.json).toEqual({ user: owner.id, tenant: null });
    const named = await get(url, '/team/notes', inTenant(keyHeader(key), tenantA));
    expect(status(named)).toEqual([403, 'AUTH_APIKEY_TENANT_MISMATCH']);
    expect(status(await get(url, '/open', inTenant(keyHeader(key), tenantA)))).toEqual([
      403,
      'AUTH_APIKEY_TENANT_MISMATCH',
    ]);
  });

  it('a key acts with its user’s current membership: removed from the tenant, it is 403 TENANT_ACCESS_DENIED', async () => {
    const { url, owner, tenantA } = team;
    const signed = await register(url, {
      email: `removed${++accounts}@example.com`,
      password: ALICE.password,
    });
    const leaver: Member = { id: signed.user.id, token: signed.accessToken };
    const added = await post(
      url,
      `/tenants/${tenantA}/members`,
      { email: signed.user.email, role: 'admin' },
      bearer(owner.token),
    );
    expect(added.status, added.text).toBe(201);
    const { key } = await createKey(url, leaver, ['*'], tenantA);
    expect((await get(url, '/team/settings', inTenant(keyHeader(key), tenantA))).status).toBe(200);
    const removed = await del(url, `/tenants/${tenantA}/members/${leaver.id}`, bearer(owner.token));
    expect(removed.status, removed.text).toBe(204);
    expect(status(await get(url, '/team/notes', inTenant(keyHeader(key), tenantA)))).toEqual([
      403,
      'TENANT_ACCESS_DENIED',
    ]);
    expect(status(await get(url, '/team/settings', inTenant(keyHeader(key), tenantA)))).toEqual([
      403,
      'TENANT_ACCESS_DENIED',
    ]);
  });

  it('a * key has no more rights than its user: a member’s key is refused where the member is', async () => {
    const { url, member, tenantA } = team;
    const { key } = await createKey(url, member, ['*'], tenantA);
    expect((await get(url, '/team/notes', inTenant(keyHeader(key), tenantA))).status).toBe(200);
    expect(status(await del(url, '/team/notes/1', inTenant(keyHeader(key), tenantA)))).toEqual([
      403,
      'PERMISSION_DENIED',
    ]);
    expect(status(await get(url, '/team/settings', inTenant(keyHeader(key), tenantA)))).toEqual([
      403,
      'TENANT_ROLE_REQUIRED',
    ]);
  });

  it('an owner’s * key cannot manage members (403 AUTH_APIKEY_NOT_ALLOWED): a leaked key buys no lasting seat', async () => {
    const { url, owner, member, tenantA } = team;
    const { key } = await createKey(url, owner, ['*'], tenantA);
    const asKey = inTenant(keyHeader(key), tenantA);
    const outsider = 'outsider@example.com';
    expect((await post(url, '/auth/register', { email: outsider, password: ALICE.password })).status).toBe(
      201,
    );
    const added = await post(url, `/tenants/${tenantA}/members`, { email: outsider, role: 'owner' }, asKey);
    expect(status(added)).toEqual([403, 'AUTH_APIKEY_NOT_ALLOWED']);
    const promoted = await call(`${url}/tenants/${tenantA}/members/${member.id}`, {
      method: 'PATCH',
      headers: { ...asKey, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'owner' }),
    });
    expect(status(promoted)).toEqual([403, 'AUTH_APIKEY_NOT_ALLOWED']);
    const removed = await del(url, `/tenants/${tenantA}/members/${member.id}`, asKey);
    expect(status(removed)).toEqual([403, 'AUTH_APIKEY_NOT_ALLOWED']);
    // Reading the team with the key still works.
    expect((await get(url, `/tenants/${tenantA}/members`, asKey)).status).toBe(200);
  });

  it('a narrow key is 403 AUTH_SCOPE_REQUIRED on can and teamRole routes without scopes; a * key passes', async () => {
    const { url, owner, tenantA } = team;
    const { key: narrow } = await createKey(url, owner, ['reports:read'], tenantA);
    const { key: wide } = await createKey(url, owner, ['*'], tenantA);
    expect((await get(url, '/team/reports', inTenant(keyHeader(narrow), tenantA))).json).toEqual({
      tenant: { id: tenantA, role: 'owner' },
    });
    for (const send of [
      (key: string) => del(url, '/team/notes/1', inTenant(keyHeader(key), tenantA)),
      (key: string) => get(url, '/team/settings', inTenant(keyHeader(key), tenantA)),
      (key: string) => get(url, '/team/notes', inTenant(keyHeader(key), tenantA)),
    ]) {
      expect(status(await send(narrow))).toEqual([403, 'AUTH_SCOPE_REQUIRED']);
      expect((await send(wide)).status).toBeLessThan(300);
    }
  });

  it('creating a key in a tenant the caller is not a member of is 403 TENANT_ACCESS_DENIED', async () => {
    const { url, member, tenantB } = team;
    const refused = await post(url, '/apikeys', { scopes: ['*'] }, inTenant(bearer(member.token), tenantB));
    expect(status(refused)).toEqual([403, 'TENANT_ACCESS_DENIED']);
    expect(status(await get(url, '/apikeys', inTenant(bearer(member.token), tenantB)))).toEqual([
      403,
      'TENANT_ACCESS_DENIED',
    ]);
  });

  it('lists the keys of the request’s tenant (or of none) only; revoking from another tenant is 404 and the key keeps working', async () => {
    const { url, tenantA, tenantB } = team;
    // An owner of A and B of their own, so no other test's keys are listed.
    const signed = await register(url, {
      email: `lister${++accounts}@example.com`,
      password: ALICE.password,
    });
    const lister: Member = { id: signed.user.id, token: signed.accessToken };
    const own = async (name: string) =>
      ((await post(url, '/tenants', { name }, bearer(lister.token))).json as { id: string }).id;
    const [mineA, mineB] = [await own('A2'), await own('B2')];
    const inA = await createKey(url, lister, ['*'], mineA);
    const inB = await createKey(url, lister, ['*'], mineB);
    const inNone = await createKey(url, lister, ['*']);
    expect(await listedIds(url, lister, mineA)).toEqual([inA.record.id]);
    expect(await listedIds(url, lister, mineB)).toEqual([inB.record.id]);
    expect(await listedIds(url, lister)).toEqual([inNone.record.id]);

    for (const from of [mineB, undefined]) {
      const refused = await del(url, `/apikeys/${inA.record.id}`, inTenant(bearer(lister.token), from));
      expect(status(refused)).toEqual([404, 'AUTH_APIKEY_NOT_FOUND']);
    }
    expect((await get(url, '/team/notes', inTenant(keyHeader(inA.key), mineA))).status).toBe(200);
    // Another owner in their own tenant cannot reach it either.
    const foreign = await del(url, `/apikeys/${inA.record.id}`, inTenant(bearer(team.owner.token), tenantA));
    expect(status(foreign)).toEqual([404, 'AUTH_APIKEY_NOT_FOUND']);
    expect(tenantB).not.toBe(mineB);

    const revoked = await del(url, `/apikeys/${inA.record.id}`, inTenant(bearer(lister.token), mineA));
    expect(revoked.status, revoked.text).toBe(204);
    expect(status(await get(url, '/team/notes', inTenant(keyHeader(inA.key), mineA)))).toEqual([
      401,
      'AUTH_TOKEN_INVALID',
    ]);
    expect(await listedIds(url, lister, mineA)).toEqual([]);
    expect(await listedIds(url, lister)).toEqual([inNone.record.id]);
  });
});

describe.each(adapters)('API-key tenancy settings on $name', (adapter) => {
  it('allowTenantlessKeys lets a tenantless key act in its user’s tenants, by their membership', async () => {
    const team = await startTeamServer(adapter, { allowTenantlessKeys: true });
    try {
      const { url, member, tenantA, tenantB } = team;
      const { key } = await createKey(url, member, ['*']);
      const inA = await get(url, '/team/notes', inTenant(keyHeader(key), tenantA));
      expect(inA.status, inA.text).toBe(200);
      expect(inA.json).toEqual({ user: member.id, tenant: { id: tenantA, role: 'member' } });
      expect(status(await get(url, '/team/notes', inTenant(keyHeader(key), tenantB)))).toEqual([
        403,
        'TENANT_ACCESS_DENIED',
      ]);
      // A key issued in a tenant still acts there only.
      const { key: scopedToA } = await createKey(url, team.owner, ['*'], tenantA);
      expect(status(await get(url, '/team/notes', inTenant(keyHeader(scopedToA), tenantB)))).toEqual([
        403,
        'AUTH_APIKEY_TENANT_MISMATCH',
      ]);
    } finally {
      await team.close();
    }
  });

  it('apiKeyPlugin registered after tenancyPlugin does not boot (OPTION_INVALID)', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, apiKeys: new ApiKeys() });
    await expect(
      adapter.start({
        routes: [route({ method: 'GET', url: '/open', meta: {}, handler: () => ({ ok: true }) })],
        plugins: [authPlugin({ auth }), tenancyPlugin({ users: auth.users }), apiKeyPlugin({ auth })],
      }),
    ).rejects.toMatchObject({ code: 'OPTION_INVALID' });
  });
});
