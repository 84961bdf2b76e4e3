// What both servers of the stores-apikey bench do: svc on Fastify with authPlugin and apiKeyPlugin, the bench
// routes behind `meta: { auth: true, scopes: ['notes:read'] }`, and the global per-IP rate limit of the other
// shared-stores benches (too high ever to refuse). At start the bench account gets a key holding `notes:read`,
// which goes to the runner (svc-fastify-apikey-key.ts); each request presents it. Only the stores differ: svc's
// in-memory defaults, or PostgreSQL (users, keys) + Redis (rate limits), with the hot-path cache openStores
// puts in front of them.
import { ApiKeys, apiKeyPlugin, authPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { BENCH_KEY_SCOPE, benchApiKeyPublisher } from './svc-fastify-apikey-key.js';
import { benchAuth, openBenchStores, type BenchStoresKind } from './stores-env.js';
import { benchGlobalRateLimit } from './stores-server.js';
import { startSvcBenchServer } from './svc-server.js';

export async function startApiKeyStoresBenchServer(kind: BenchStoresKind): Promise<void> {
  const stores = await openBenchStores(kind);
  const apiKeys = new ApiKeys({ scopes: [BENCH_KEY_SCOPE], store: stores.apiKeys });
  const { auth } = await benchAuth(kind, { apiKeys, stores });
  const user = (await auth.users.findByEmail('bench@example.com'))!;
  const { key } = await apiKeys.issue({ name: 'bench', scopes: [BENCH_KEY_SCOPE], userId: user.id });
  const keyPublisher = benchApiKeyPublisher(key);
  await startSvcBenchServer({
    adapter: fastifyPlugin,
    plugins: [
      benchGlobalRateLimit(stores),
      authPlugin({ auth, routes: false }),
      apiKeyPlugin({ auth }),
      keyPublisher,
    ],
    meta: { auth: true, scopes: [BENCH_KEY_SCOPE] },
  });
}
