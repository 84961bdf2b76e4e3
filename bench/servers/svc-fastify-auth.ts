// svc on Fastify with the auth plugin, serving the bench routes behind `meta.auth: true`: each request carries
// a bearer JWT (the runner mints it with the shared secret) that the auth enricher verifies. Compared with
// svc alone, answering the same routes anonymously.
import { Auth, authPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { BENCH_ACCESS_TTL, BENCH_AUTH_SECRET } from './auth-secret.js';
import { startSvcBenchServer } from './svc-server.js';

const auth = new Auth({ secret: BENCH_AUTH_SECRET, accessTtl: BENCH_ACCESS_TTL });
await startSvcBenchServer({
  adapter: fastifyPlugin,
  plugins: [authPlugin({ auth, routes: false })],
  meta: { auth: true },
});
