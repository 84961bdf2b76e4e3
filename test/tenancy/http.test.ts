// Tenancy over HTTP on every adapter: the membership guard, `teamRole`, `can` (and a malformed `can` answering
// 500 on each request), `account`/`central` routes, the team routes and their role rules, and the tenant
// as rate-limit key and idempotency scope.
import { describe, expect, it } from 'vitest';
import {
  Auth,
  authPlugin,
  idempotencyPlugin,
  isTenantId,
  requirePermission,
  requireTenantId,
  route,
  securityPlugin,
  tenancyPlugin,
  type Plugin,
  type Route,
  type TenancyPluginOptions,
} from 'svckit';
import { FAST_HASH, SECRET, bearer, codeOf, get, post, register } from '../http/auth-harness.js';
import { adapters, call, withServer, type AdapterUnderTest } from '../http/harness.js';

const PERMISSIONS = { 'notes:delete': ['owner', 'admin'] };

const appRoutes: Route[] = [
  route({
    method: 'GET',
    url: '/team/notes',
    meta: { auth: true },
    handler: ({ context }) => ({ tenant: requireTenantId(context), role: context.tenant }),
  }),
  route({
    method: 'DELETE',
    url: '/team/notes/:id',
    meta: { auth: true, can: 'notes:delete' },
    handler: ({ reply }) => void reply.status(204).send(),
  }),
  route({
    method: 'POST',
    url: '/team/purge',
    meta: { auth: true },
    // A check that depends on the data: the same rule as meta.can, asked from the handler.
    handler: async ({ context }) => {
      await requirePermission(context, 'notes:delete');
      return { purged: true };
    },
  }),
  route({ method: 'GET', url: '/team/settings', meta: { teamRole: 'admin' }, handler: () => ({ ok: true }) }),
  route({
    method: 'GET',
    url: '/me',
    meta: { auth: true, account: true },
    handler: ({ context }) => ({ tenant: context.tenant ?? null }),
  }),
  route({
    method: 'GET',
    url: '/platform',
    meta: { auth: true, central: true },
    handler: ({ context }) => ({ tenant: context.tenant ?? null }),
  }),
  route({ method: 'GET', url: '/public', meta: {}, handler: () => ({ ok: true }) }),
  route({ method: 'GET', url: '/bad-can', meta: { can: 42 as never }, handler: () => ({ ran: true }) }),
  // An edge route, as the health plugin makes them: no enricher or guard runs on it.
  { ...route({ method: 'GET', url: '/probe', handler: () => ({ up: true }) }), edge: true },
];

interface Team {
  url: string;
  auth: Auth;
  owner: { token: string; id: string };
  admin: { token: string; id: string };
  member: { token: string; id: string };
  outsider: { token: string; id: string };
  tenantId: string;
  otherTenantId: string;
  events: string[];
}

const headers = (token: string, tenantId?: string) => ({
  ...bearer(token),
  ...(tenantId === undefined ? {} : { 'x-tenant-id': tenantId }),
});

function recordEvents(events: string[]): Plugin {
  return {
    name: 'record-tenancy-events',
    setup(app) {
      for (const name of [
        'tenant:created',
        'tenant:member_added',
        'tenant:member_role_changed',
        'tenant:member_removed',
      ] as const)
        app.hooks.on(name, () => void events.push(name));
    },
  };
}

/** A team of four accounts: an owner, an admin, a member, and an outsider who owns another team. */
async function withTeam(
  adapter: AdapterUnderTest,
  body: (team: Team) => Promise<void>,
  options: { tenancy?: Partial<TenancyPluginOptions>; plugins?: Plugin[]; routes?: Route[] } = {},
): Promise<void> {
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
  const events: string[] = [];
  await withServer(
    adapter,
    {
      routes: options.routes ?? appRoutes,
      plugins: [
        authPlugin({ auth }),
        tenancyPlugin({ users: auth.users, permissions: PERMISSIONS, ...options.tenancy }),
        recordEvents(events),
        ...(options.plugins ?? []),
      ],
    },
    async (url) => {
      const account = async (name: string) => {
        const signed = await register(url, {
          email: `${name}@example.com`,
          password: 'correct horse battery',
        });
        return { token: signed.accessToken, id: signed.user.id };
      };
      const [owner, admin, member, outsider] = await Promise.all(
        ['owner', 'admin', 'member', 'outsider'].map(account),
      );
      const created = await post(url, '/tenants', { name: 'Acme' }, bearer(owner!.token));
      expect(created.status, created.text).toBe(201);
      const tenantId = (created.json as { id: string }).id;
      for (const [who, role] of [
        ['admin', 'admin'],
        ['member', 'member'],
      ] as const) {
        const added = await post(
          url,
          `/tenants/${tenantId}/members`,
          { email: `${who}@example.com`, role },
          bearer(owner!.token),
        );
        expect(added.status, added.text).toBe(201);
      }
      const other = await post(url, '/tenants', { name: 'Other' }, bearer(outsider!.token));
      const otherTenantId = (other.json as { id: string }).id;
      await body({
        url,
        auth,
        owner: owner!,
        admin: admin!,
        member: member!,
        outsider: outsider!,
        tenantId,
        otherTenantId,
        events,
      });
    },
  );
}

const status = (response: { status: number; json: unknown }) => [response.status, codeOf(response.json)];

function del(url: string, path: string, headers: Record<string, string>) {
  return call(`${url}${path}`, { method: 'DELETE', headers });
}

function patch(url: string, path: string, body: unknown, headers: Record<string, string>) {
  return call(`${url}${path}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe.each(adapters)('tenancy on $name', (adapter) => {
  it('lets members in with their role, refuses non-members alike whether the tenant exists or not', async () => {
    await withTeam(adapter, async ({ url, member, outsider, tenantId }) => {
      const read = await get(url, '/team/notes', headers(member.token, tenantId));
      expect(read.status).toBe(200);
      expect(read.json).toEqual({ tenant: tenantId, role: { id: tenantId, role: 'member' } });

      const foreign = await get(url, '/team/notes', headers(outsider.token, tenantId));
      expect(status(foreign)).toEqual([403, 'TENANT_ACCESS_DENIED']);
      const missing = await get(url, '/team/notes', headers(outsider.token, 'no-such-tenant'));
      expect(status(missing)).toEqual([403, 'TENANT_ACCESS_DENIED']);
      const strip = (text: string) => text.replace(/"requestId":"[^"]*"/g, '');
      expect(strip(missing.text)).toBe(strip(foreign.text));
      // Anonymous callers are no members either, even on a public route.
      expect(status(await get(url, '/public', { 'x-tenant-id': tenantId }))).toEqual([
        403,
        'TENANT_ACCESS_DENIED',
      ]);
      expect((await get(url, '/public')).status).toBe(200);
      // Without a tenant, a handler asking for one answers 400.
      expect(status(await get(url, '/team/notes', headers(member.token)))).toEqual([400, 'TENANT_REQUIRED']);
    });
  });

  it('meta.can: a member is refused, an admin or owner allowed; requirePermission() decides the same', async () => {
    await withTeam(adapter, async ({ url, owner, admin, member, outsider, tenantId }) => {
      const path = '/team/notes/1';
      expect(status(await del(url, path, headers(member.token, tenantId)))).toEqual([
        403,
        'PERMISSION_DENIED',
      ]);
      expect((await del(url, path, headers(admin.token, tenantId))).status).toBe(204);
      expect((await del(url, path, headers(owner.token, tenantId))).status).toBe(204);
      expect(status(await del(url, path, headers(outsider.token, tenantId)))).toEqual([
        403,
        'TENANT_ACCESS_DENIED',
      ]);
      expect(status(await del(url, path, headers(admin.token)))).toEqual([400, 'TENANT_REQUIRED']);
      expect(status(await del(url, path, { 'x-tenant-id': tenantId }))).toEqual([401, 'AUTH_REQUIRED']);

      expect(status(await post(url, '/team/purge', undefined, headers(member.token, tenantId)))).toEqual([
        403,
        'PERMISSION_DENIED',
      ]);
      expect((await post(url, '/team/purge', undefined, headers(admin.token, tenantId))).json).toEqual({
        purged: true,
      });
    });
  });

  it('meta.teamRole: the role or a more powerful one', async () => {
    await withTeam(adapter, async ({ url, owner, admin, member, tenantId }) => {
      expect(status(await get(url, '/team/settings', headers(member.token, tenantId)))).toEqual([
        403,
        'TENANT_ROLE_REQUIRED',
      ]);
      expect((await get(url, '/team/settings', headers(admin.token, tenantId))).status).toBe(200);
      expect((await get(url, '/team/settings', headers(owner.token, tenantId))).status).toBe(200);
      expect(status(await get(url, '/team/settings', headers(admin.token)))).toEqual([
        400,
        'TENANT_REQUIRED',
      ]);
    });
  });

  it('a malformed meta.can answers 500 PERMISSION_META_INVALID on each request, and never runs the handler', async () => {
    await withTeam(adapter, async ({ url, owner, tenantId }) => {
      for (const request of [headers(owner.token, tenantId), headers(owner.token), {}]) {
        const response = await get(url, '/bad-can', request);
        expect(status(response)).toEqual([500, 'PERMISSION_META_INVALID']);
        expect(response.text).not.toContain('ran');
      }
    });
  });

  it('account and central routes pass non-members without putting the tenant on the context; edge routes are untouched', async () => {
    await withTeam(adapter, async ({ url, member, outsider, tenantId }) => {
      for (const path of ['/me', '/platform']) {
        const foreign = await get(url, path, headers(outsider.token, tenantId));
        expect([foreign.status, foreign.json]).toEqual([200, { tenant: null }]);
        const own = await get(url, path, headers(member.token, tenantId));
        expect(own.json).toEqual({ tenant: { id: tenantId, role: 'member' } });
      }
      // The account routes of the auth module too.
      expect((await get(url, '/auth/me', headers(outsider.token, tenantId))).status).toBe(200);
      expect((await get(url, '/probe', { 'x-tenant-id': tenantId })).status).toBe(200);
      expect((await get(url, '/probe', { 'x-tenant-id': 'a, b' })).status).toBe(200);
    });
  });

  it('refuses a malformed or repeated tenant header, and a path naming another tenant than the header', async () => {
    await withTeam(adapter, async ({ url, member, tenantId, otherTenantId }) => {
      const repeated = new Headers(bearer(member.token));
      repeated.append('x-tenant-id', tenantId);
      repeated.append('x-tenant-id', tenantId);
      const twice = await call(`${url}/team/notes`, { headers: repeated });
      expect(status(twice)).toEqual([400, 'TENANT_INVALID']);
      // What no client library sends as a header value is refused by the same rule.
      for (const bad of ['ü', 'a\u0000b', 'a\nb']) expect(isTenantId(bad), JSON.stringify(bad)).toBe(false);
      // Each value is sent as written (a header fetch can carry); a lone space arrives trimmed to empty.
      for (const bad of ['', ' ', 'a b', 'a/b', 'a%20b', 'x'.repeat(129), '.', '..']) {
        const response = await call(`${url}/team/notes`, {
          headers: { ...bearer(member.token), 'x-tenant-id': bad },
        });
        expect(status(response), JSON.stringify(bad)).toEqual([400, 'TENANT_INVALID']);
      }
      const conflict = await get(url, `/tenants/${tenantId}/members`, headers(member.token, otherTenantId));
      expect(status(conflict)).toEqual([400, 'TENANT_CONFLICT']);
    });
  });

  it('a tenant another enricher put on the context is not a membership', async () => {
    const impostor: Plugin = {
      name: 'impostor',
      setup(app) {
        app.metadata.add('http:enrichers', {
          name: 'impostor',
          enrich: ({ request, context }) => {
            context.tenant = { id: request.headers['x-tenant-id'], role: 'owner' };
          },
        });
      },
    };
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    await withServer(
      adapter,
      {
        routes: appRoutes,
        plugins: [
          impostor,
          authPlugin({ auth }),
          tenancyPlugin({ users: auth.users, permissions: PERMISSIONS }),
        ],
      },
      async (url) => {
        const outsider = await register(url, { email: 'out@example.com', password: 'correct horse battery' });
        const owner = await register(url, { email: 'own@example.com', password: 'correct horse battery' });
        const team = await post(url, '/tenants', { name: 'Acme' }, bearer(owner.accessToken));
        const tenantId = (team.json as { id: string }).id;
        for (const path of ['/team/settings', '/team/notes']) {
          const response = await get(url, path, headers(outsider.accessToken, tenantId));
          expect(status(response)).toEqual([403, 'TENANT_ACCESS_DENIED']);
        }
        expect((await get(url, '/me', headers(outsider.accessToken, tenantId))).json).toEqual({
          tenant: null,
        });
      },
    );
  });

  it('team routes: create and list my teams, members listed for members only, managed by tenant:members', async () => {
    await withTeam(adapter, async ({ url, owner, admin, member, outsider, tenantId, events }) => {
      // A name of spaces or with control characters is refused before it reaches a store.
      for (const name of ['   ', 'a\u0000b', 'tab\there']) {
        const refused = await post(url, '/tenants', { name }, bearer(member.token));
        expect(status(refused), JSON.stringify(name)).toEqual([400, 'HTTP_VALIDATION']);
      }
      const bad = await del(url, `/tenants/${tenantId}/members/a%00b`, bearer(owner.token));
      expect(status(bad)).toEqual([400, 'HTTP_VALIDATION']);

      const mine = await get(url, '/tenants', bearer(member.token));
      expect(mine.json).toEqual({ items: [{ id: tenantId, name: 'Acme', role: 'member' }] });
      // With a foreign tenant header: listing one's teams is about the caller.
      expect((await get(url, '/tenants', headers(outsider.token, tenantId))).status).toBe(200);

      const members = await get(url, `/tenants/${tenantId}/members`, bearer(member.token));
      expect(members.status).toBe(200);
      // In the order they joined; the team's creator and the first member added may join in one millisecond,
      // which the store breaks by user id, so the order is not asserted here.
      const listed = (members.json as { items: { email: string; role: string }[] }).items;
      expect(listed.map((m) => [m.email, m.role]).sort()).toEqual([
        ['admin@example.com', 'admin'],
        ['member@example.com', 'member'],
        ['owner@example.com', 'owner'],
      ]);
      expect(status(await get(url, `/tenants/${tenantId}/members`, bearer(outsider.token)))).toEqual([
        403,
        'TENANT_ACCESS_DENIED',
      ]);

      // A member cannot manage members; an admin cannot touch the owner nor make anyone owner.
      const path = `/tenants/${tenantId}/members`;
      expect(
        status(
          await post(url, path, { email: 'outsider@example.com', role: 'member' }, bearer(member.token)),
        ),
      ).toEqual([403, 'PERMISSION_DENIED']);
      expect(
        status(await post(url, path, { email: 'outsider@example.com', role: 'owner' }, bearer(admin.token))),
      ).toEqual([403, 'TENANT_ROLE_REQUIRED']);
      expect(
        status(await patch(url, `${path}/${owner.id}`, { role: 'member' }, bearer(admin.token))),
      ).toEqual([403, 'TENANT_ROLE_REQUIRED']);
      expect(status(await del(url, `${path}/${owner.id}`, bearer(admin.token)))).toEqual([
        403,
        'TENANT_ROLE_REQUIRED',
      ]);
      expect(
        status(await post(url, path, { email: 'nobody@example.com', role: 'member' }, bearer(admin.token))),
      ).toEqual([404, 'TENANT_USER_NOT_FOUND']);
      expect(
        status(await post(url, path, { email: 'member@example.com', role: 'member' }, bearer(admin.token))),
      ).toEqual([409, 'TENANT_MEMBER_EXISTS']);
      expect(
        status(await post(url, path, { email: 'outsider@example.com', role: 'boss' }, bearer(admin.token))),
      ).toEqual([400, 'TENANT_ROLE_UNKNOWN']);

      // The admin promotes the member; the next request sees the new role.
      const promoted = await patch(url, `${path}/${member.id}`, { role: 'admin' }, bearer(admin.token));
      expect([promoted.status, (promoted.json as { role: string }).role]).toEqual([200, 'admin']);
      expect((await del(url, '/team/notes/1', headers(member.token, tenantId))).status).toBe(204);
      // Removed: the next request is a non-member's.
      expect((await del(url, `${path}/${member.id}`, bearer(owner.token))).status).toBe(204);
      expect(status(await get(url, '/team/notes', headers(member.token, tenantId)))).toEqual([
        403,
        'TENANT_ACCESS_DENIED',
      ]);
      expect(events).toEqual(
        expect.arrayContaining([
          'tenant:created',
          'tenant:member_added',
          'tenant:member_role_changed',
          'tenant:member_removed',
        ]),
      );
    });
  });

  it('the last owner can neither leave, be removed nor be demoted; once another owner exists, it can', async () => {
    await withTeam(adapter, async ({ url, owner, admin, tenantId }) => {
      const path = `/tenants/${tenantId}/members`;
      expect(status(await post(url, `/tenants/${tenantId}/leave`, undefined, bearer(owner.token)))).toEqual([
        409,
        'TENANT_LAST_OWNER',
      ]);
      expect(status(await del(url, `${path}/${owner.id}`, bearer(owner.token)))).toEqual([
        409,
        'TENANT_LAST_OWNER',
      ]);
      expect(status(await patch(url, `${path}/${owner.id}`, { role: 'admin' }, bearer(owner.token)))).toEqual(
        [409, 'TENANT_LAST_OWNER'],
      );
      expect((await patch(url, `${path}/${admin.id}`, { role: 'owner' }, bearer(owner.token))).status).toBe(
        200,
      );
      expect((await post(url, `/tenants/${tenantId}/leave`, undefined, bearer(owner.token))).status).toBe(
        204,
      );
      expect(status(await get(url, '/team/notes', headers(owner.token, tenantId)))).toEqual([
        403,
        'TENANT_ACCESS_DENIED',
      ]);
    });
  });
});

describe('tenancy with the edge and idempotency plugins', () => {
  const adapter = adapters[0]!;

  it('a per-tenant rate limit counts the resolved tenant, not the header a non-member sends', async () => {
    const limited = route({
      method: 'GET',
      url: '/limited',
      meta: { auth: true, rateLimit: { limit: 1, windowMs: 60_000, key: 'tenant' } },
      handler: () => ({ ok: true }),
    });
    await withTeam(
      adapter,
      async ({ url, owner, member, outsider, tenantId, otherTenantId }) => {
        expect((await get(url, '/limited', headers(member.token, tenantId))).status).toBe(200);
        // Same tenant, another member: the tenant's bucket is spent.
        expect(status(await get(url, '/limited', headers(owner.token, tenantId)))).toEqual([
          429,
          'RATE_LIMITED',
        ]);
        expect((await get(url, '/limited', headers(outsider.token, otherTenantId))).status).toBe(200);
      },
      { routes: [limited], plugins: [securityPlugin({})] },
    );
  });

  it('idempotency keys are scoped by the tenant the resolver names, not only by the raw headers', async () => {
    let runs = 0;
    const create = route({
      method: 'POST',
      url: '/things',
      meta: { auth: true, idempotency: 'optional' },
      handler: ({ context }) => ({ run: ++runs, tenant: requireTenantId(context) }),
    });
    await withTeam(
      adapter,
      async ({ url, owner, tenantId, otherTenantId, auth }) => {
        // The owner of Acme joins Other as well, so both tenants accept the same token.
        const join = await post(
          url,
          `/tenants/${otherTenantId}/members`,
          { email: 'owner@example.com', role: 'member' },
          bearer((await auth.login('outsider@example.com', 'correct horse battery')).tokens.accessToken),
        );
        expect(join.status, join.text).toBe(201);
        const send = (org: string) =>
          post(url, '/things', {}, { ...bearer(owner.token), 'x-org': org, 'idempotency-key': 'k1' });
        const first = await send(tenantId);
        const second = await send(otherTenantId);
        expect([first.json, second.json]).toEqual([
          { run: 1, tenant: tenantId },
          { run: 2, tenant: otherTenantId },
        ]);
        expect((await send(tenantId)).json).toEqual({ run: 1, tenant: tenantId });
      },
      {
        routes: [create],
        plugins: [idempotencyPlugin()],
        tenancy: {
          resolveTenant: ({ request }) => {
            const org = request.headers['x-org'];
            return typeof org === 'string' ? org : undefined;
          },
        },
      },
    );
  });
});

describe('tenancy boot checks', () => {
  const adapter = adapters[0]!;
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });

  it('an unknown teamRole, or a permission no role is granted, refuses to boot', async () => {
    const permissions = { ...PERMISSIONS, 'notes:archive': [] };
    for (const meta of [{ teamRole: 'boss' }, { can: 'notes:archive' }, { can: ['notes:delete', 'x:y'] }]) {
      const start = adapter.start({
        routes: [route({ method: 'GET', url: '/x', meta, handler: () => ({}) })],
        plugins: [authPlugin({ auth }), tenancyPlugin({ users: auth.users, permissions })],
      });
      await expect(start, JSON.stringify(meta)).rejects.toMatchObject({ code: 'HTTP_INVALID_ROUTE_META' });
    }
    // With an authorize function, a permission only it grants boots.
    const server = await adapter.start({
      routes: [route({ method: 'GET', url: '/x', meta: { can: 'notes:archive' }, handler: () => ({}) })],
      plugins: [
        authPlugin({ auth }),
        tenancyPlugin({ users: auth.users, permissions, authorize: () => false }),
      ],
    });
    await server.close();
  });

  it('without the plugin, teamRole and can refuse to boot as unguarded', async () => {
    const start = adapter.start({
      routes: [route({ method: 'GET', url: '/x', meta: { can: 'a' }, handler: () => ({}) })],
      plugins: [authPlugin({ auth })],
    });
    await expect(start).rejects.toMatchObject({ code: 'HTTP_UNGUARDED_ROUTE_META' });
  });

  it('refuses unknown options and bad roles', () => {
    expect(() => tenancyPlugin({ users: auth.users, rolez: [] } as never)).toThrow(/rolez/);
    expect(() => tenancyPlugin({ users: auth.users, roles: [] })).toThrow(/roles/);
    expect(() => tenancyPlugin({ users: auth.users, roles: ['owner', 'owner'] })).toThrow(/twice/);
    expect(() => tenancyPlugin({ users: auth.users, permissions: { x: ['boss'] } })).toThrow(/boss/);
    expect(() => tenancyPlugin({ users: auth.users, header: 'x tenant' })).toThrow(/header/);
    for (const header of ['Authorization', 'cookie', 'host', 'x-api-key'])
      expect(() => tenancyPlugin({ users: auth.users, header })).toThrow(/already means/);
  });
});
