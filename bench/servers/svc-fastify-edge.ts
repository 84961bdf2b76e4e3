// svc on Fastify with the bench's two routes and the edge plugins whose cost the bench measures together:
// secure headers, metrics and tracing (in-memory exporter, so no network in the measurement).
import { createApp, metricsPlugin, securityPlugin, tracingPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { GREETING, announce } from './shared.js';
import { benchRoutes } from './svc-routes.js';

const app = createApp({ name: 'bench' });
app.register(securityPlugin());
app.register(metricsPlugin());
app.register(tracingPlugin({ serviceName: 'bench' }));
app.register(
  fastifyPlugin({
    routes: benchRoutes({
      hello: () => GREETING,
      createItem: ({ body }) => body,
    }),
  }),
);
const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
announce(url);
