// svc on Fastify with the bench's two routes and the edge plugins whose cost the bench measures together:
// secure headers, metrics and tracing. Tracing runs with its default exporter, and the bench sets no
// OTEL_EXPORTER_OTLP_* endpoint, so spans are made, propagated and dropped; svc-fastify-edge-memory.ts keeps
// them in the in-memory exporter instead, to show what holding spans costs.
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

if (import.meta.url === `file://${process.argv[1]}`) await startEdgeServer(false);
