// One of the two processes of the two-process bench (bench/two-process.ts): the shared-stores server
// (PostgreSQL + Redis, the hot cache on) with the auth routes, so a logout can be sent to either process, and a
// global per-IP rate limit of BENCH_RATE_LIMIT hits a minute counted in Redis by leases.
import { authPlugin, securityPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { benchAuth } from './stores-env.js';
import { startSvcBenchServer } from './svc-server.js';

const limit = Number(process.env.BENCH_RATE_LIMIT);
if (!Number.isInteger(limit) || limit < 1)
  throw new Error('BENCH_RATE_LIMIT must be a whole number, 1 or more');
const { auth, stores } = await benchAuth('shared');
await startSvcBenchServer({
  adapter: fastifyPlugin,
  plugins: [
    securityPlugin({ headers: false, rateLimit: { limit, windowMs: 60_000, store: stores.rateLimit } }),
    authPlugin({ auth }),
  ],
  meta: { auth: true },
});
