// Tenancy through the agent-tool endpoint: tools/list hides tools of a tenant the caller is not a member of
// and tools whose role or permission the caller lacks (side-effect-free checks); tools/call runs every guard.
import { describe, expect, it } from 'vitest';
import { Auth, authPlugin, tenancyPlugin, type Route } from 'svckit';
import { FAST_HASH, SECRET, bearer, post, register } from '../http/auth-harness.js';
import { adapters } from '../http/harness.js';
import { openSession, resultOf, toolResult, toolRoute, withMcp } from '../http/mcp-helpers.js';

const routes: Route[] = [
  toolRoute('/team/summary', () => ({ ok: true }), { auth: true }),
  toolRoute('/team/settings', () => ({ ok: true }), { auth: true, teamRole: 'admin' }),
  toolRoute('/team/purge', () => ({ ok: true }), { auth: true, can: 'notes:delete' }),
];

const names = async (session: Awaited<ReturnType<typeof openSession>>) =>
  ((resultOf(await session.list()).tools as { name: string }[]) ?? []).map((tool) => tool.name).sort();

describe('tenancy and agent tools', () => {
  const adapter = adapters[0]!;

  it('lists what the caller may use in the named tenant, and refuses calls the guards refuse', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    await withMcp(
      adapter,
      {
        routes,
        plugins: [
          authPlugin({ auth }),
          tenancyPlugin({ users: auth.users, permissions: { 'notes:delete': ['owner', 'admin'] } }),
        ],
      },
      async (url) => {
        const owner = await register(url, { email: 'owner@example.com', password: 'correct horse battery' });
        const member = await register(url, {
          email: 'member@example.com',
          password: 'correct horse battery',
        });
        const outsider = await register(url, { email: 'out@example.com', password: 'correct horse battery' });
        const tenantId = (
          (await post(url, '/tenants', { name: 'Acme' }, bearer(owner.accessToken))).json as {
            id: string;
          }
        ).id;
        const added = await post(
          url,
          `/tenants/${tenantId}/members`,
          { email: 'member@example.com', role: 'member' },
          bearer(owner.accessToken),
        );
        expect(added.status).toBe(201);
        const as = (token: string) => ({ headers: { ...bearer(token), 'x-tenant-id': tenantId } });

        const ownerSession = await openSession(url, as(owner.accessToken));
        expect(await names(ownerSession)).toEqual([
          'get_team_purge',
          'get_team_settings',
          'get_team_summary',
        ]);
        const memberSession = await openSession(url, as(member.accessToken));
        expect(await names(memberSession)).toEqual(['get_team_summary']);
        // A caller naming a tenant they are not a member of is refused at the endpoint itself.
        const refused = await post(url, '/mcp', {}, as(outsider.accessToken).headers);
        expect([refused.status, (refused.json as { error?: { code?: string } }).error?.code]).toEqual([
          403,
          'TENANT_ACCESS_DENIED',
        ]);

        const call = toolResult(await memberSession.call('get_team_settings'));
        expect(call.isError).toBe(true);
        expect(JSON.stringify(call)).toContain('TENANT_ROLE_REQUIRED');
        expect(toolResult(await ownerSession.call('get_team_settings')).isError).toBeUndefined();
      },
    );
  });

  it('tool calls act in the tenant a custom tenant header names', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    await withMcp(
      adapter,
      {
        routes,
        plugins: [
          authPlugin({ auth }),
          tenancyPlugin({ users: auth.users, header: 'X-Team', permissions: { 'notes:delete': ['owner'] } }),
        ],
      },
      async (url) => {
        const owner = await register(url, { email: 'owner@example.com', password: 'correct horse battery' });
        const tenantId = (
          (await post(url, '/tenants', { name: 'Acme' }, bearer(owner.accessToken))).json as {
            id: string;
          }
        ).id;
        const session = await openSession(url, {
          headers: { ...bearer(owner.accessToken), 'x-team': tenantId },
        });
        const call = toolResult(await session.call('get_team_settings'));
        expect(call.isError, JSON.stringify(call)).toBeUndefined();
      },
    );
  });
});
