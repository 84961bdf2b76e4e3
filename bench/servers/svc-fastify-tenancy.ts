// svc on Fastify with auth and tenancy, memberships in this process's memory: each request's membership check
// is one in-memory lookup. Compared with svc-fastify-auth.ts (the same routes, auth only).
import { MemoryMembershipStore } from 'svckit';
import { startTenancyBenchServer } from './svc-fastify-tenancy-server.js';

await startTenancyBenchServer(new MemoryMembershipStore());
