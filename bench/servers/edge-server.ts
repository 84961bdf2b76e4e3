// svc on Fastify with the bench's two routes and the edge plugins whose cost the bench measures together:
// secure headers, metrics and tracing. Started by svc-fastify-edge.ts (tracing's default exporter: the bench
// sets no OTEL_EXPORTER_OTLP_* endpoint, so spans are made, propagated and dropped) and by
// svc-fastify-edge-memory.ts (spans kept in the in-memory exporter, to show what holding them costs).
import { createApp, inMemoryExporter, metricsPlugin, securityPlugin, tracingPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { GREETING, announce } from './shared.js';
import { benchRoutes } from './svc-routes.js';

export async function startEdgeServer(keepSpans: boolean): Promise<void> {
  const app = createApp({ name: 'bench' });
  app.register(securityPlugin());
  app.register(metricsPlugin());
  app.register(
    tracingPlugin({ serviceName: 'bench', ...(keepSpans ? { exporter: inMemoryExporter() } : {}) }),
  );
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
}
