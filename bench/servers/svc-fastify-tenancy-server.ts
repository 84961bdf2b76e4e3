// What the tenancy bench servers do: svc-fastify-auth.ts (the bench routes behind `meta.auth: true`, a bearer
// JWT on each request) plus tenancyPlugin without its team routes, on the memberships store given. At start
// the bench user becomes a `member` of one new tenant (owned by another account, as in a real team), whose id
// goes to the runner (svc-fastify-tenancy-id.ts); every request names it, so the enricher reads the member's
// role from the store and the membership guard checks it.
import { Auth, authPlugin, tenancyPlugin, type MembershipStore, type Plugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { BENCH_ACCESS_TTL, BENCH_AUTH_SECRET } from './auth-secret.js';
import { BENCH_MEMBER_ID, publishBenchTenantId } from './svc-fastify-tenancy-id.js';
import { startSvcBenchServer } from './svc-server.js';

export async function startTenancyBenchServer(memberships: MembershipStore): Promise<void> {
  const tenant = await memberships.createTenant({ name: 'bench', ownerId: 'bench-owner', role: 'owner' });
  const added = await memberships.addMember(tenant.id, BENCH_MEMBER_ID, 'member');
  if (!added.ok) throw new Error(`bench member not added: ${added.reason}`);
  const auth = new Auth({ secret: BENCH_AUTH_SECRET, accessTtl: BENCH_ACCESS_TTL });
  // Written on `app:listening`, which comes before the URL is announced: the runner finds it once it knows the URL.
  const tenantIdPublisher: Plugin = {
    name: 'bench:tenant-id',
    setup(app) {
      app.hooks.on('app:listening', ({ url }) => publishBenchTenantId(url, tenant.id));
    },
  };
  await startSvcBenchServer({
    adapter: fastifyPlugin,
    plugins: [
      authPlugin({ auth, routes: false }),
      tenancyPlugin({ users: auth.users, memberships, routes: false }),
      tenantIdPublisher,
    ],
    meta: { auth: true },
  });
}
