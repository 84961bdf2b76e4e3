// What both servers of the shared-stores HTTP benches do: svc on Fastify with the auth plugin (the bench
// routes behind `meta.auth: true`) and a global per-IP rate limit too high ever to refuse, so every request
// verifies its credential and counts one hit in the rate-limit store. Only the stores differ: svc's in-memory
// defaults, or PostgreSQL + Redis (bench/servers/stores-env.ts).
import { authPlugin, securityPlugin, type Plugin, type Stores } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { benchAuth, type BenchStoresKind } from './stores-env.js';
import { startSvcBenchServer } from './svc-server.js';

export async function startStoresBenchServer(kind: BenchStoresKind): Promise<void> {
  const { auth, stores } = await benchAuth(kind);
  await startSvcBenchServer({
    adapter: fastifyPlugin,
    plugins: [benchGlobalRateLimit(stores), authPlugin({ auth, routes: false })],
    meta: { auth: true },
  });
}

/** The shared-stores benches' global per-IP rate limit: counted in `stores`, too high ever to refuse. */
export function benchGlobalRateLimit(stores: Stores): Plugin {
  return securityPlugin({
    headers: false,
    rateLimit: { limit: 1e9, windowMs: 60_000, store: stores.rateLimit },
  });
}
