// svc on Fastify with the bench's two routes and the edge plugins whose cost the bench measures together:
// secure headers, metrics and tracing. Started by svc-fastify-edge.ts (tracing's default exporter: the bench
// sets no OTEL_EXPORTER_OTLP_* endpoint, so spans are made, propagated and dropped) and by
// svc-fastify-edge-memory.ts (spans kept in the in-memory exporter, to show what holding them costs).
import { inMemoryExporter, metricsPlugin, securityPlugin, tracingPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { startSvcBenchServer } from './svc-server.js';

export async function startEdgeServer(keepSpans: boolean): Promise<void> {
  await startSvcBenchServer({
    adapter: fastifyPlugin,
    plugins: [
      securityPlugin(),
      metricsPlugin(),
      tracingPlugin({ serviceName: 'bench', ...(keepSpans ? { exporter: inMemoryExporter() } : {}) }),
    ],
  });
}
