// svc on Fastify with authPlugin and apiKeyPlugin, serving the bench routes behind
// `meta: { auth: true, scopes: ['notes:read'] }`, every store the in-memory default. At start it makes one
// user and issues them a key holding `notes:read`, which goes to the runner (svc-fastify-apikey-key.ts); each
// request presents it in `x-api-key`, so the key enricher hashes it, finds it in the key store and reads its
// user from the user store, and the guard checks its scopes. Compared with svc alone, answering the same
// routes anonymously.
import { ApiKeys, Auth, apiKeyPlugin, authPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { BENCH_AUTH_SECRET } from './auth-secret.js';
import { BENCH_KEY_SCOPE, benchApiKeyPublisher } from './svc-fastify-apikey-key.js';
import { startSvcBenchServer } from './svc-server.js';

const apiKeys = new ApiKeys({ scopes: [BENCH_KEY_SCOPE] });
const auth = new Auth({ secret: BENCH_AUTH_SECRET, apiKeys });
const user = await auth.users.create({ email: 'bench@example.com', emailVerified: true });
const { key } = await apiKeys.issue({ name: 'bench', scopes: [BENCH_KEY_SCOPE], userId: user.id });

const keyPublisher = benchApiKeyPublisher(key);

await startSvcBenchServer({
  adapter: fastifyPlugin,
  plugins: [authPlugin({ auth, routes: false }), apiKeyPlugin({ auth }), keyPublisher],
  meta: { auth: true, scopes: [BENCH_KEY_SCOPE] },
});
