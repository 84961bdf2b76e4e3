// svc on Fastify with auth and tenancy on PostgreSQL + Redis (the bench database and key prefix the runner
// prepares, bench/stores.ts), as openStores makes them: memberships in PostgreSQL behind the hot-path cache,
// whose invalidations travel over Redis. Compared with svc-fastify-tenancy.ts (memberships in memory).
import { openBenchStores } from './stores-env.js';
import { startTenancyBenchServer } from './svc-fastify-tenancy-server.js';

const stores = await openBenchStores('shared');
await startTenancyBenchServer(stores.memberships!);
