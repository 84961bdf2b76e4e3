// svc on Fastify with auth and tenancy, memberships in PostgreSQL (the bench database the runner prepares,
// bench/stores.ts): each request's membership check is one query. Compared with svc-fastify-tenancy.ts.
import { openStores } from 'svckit';
import { benchDatabaseUrl } from './stores-env.js';
import { startTenancyBenchServer } from './svc-fastify-tenancy-server.js';

const stores = await openStores({ database: benchDatabaseUrl() }, { sweepIntervalMs: 0 });
await startTenancyBenchServer(stores.memberships!);
