// svc on Fastify with the bench's two routes and the edge plugins whose cost the bench measures: secure
// headers, metrics and tracing together (svc-fastify-edge.ts: tracing's default exporter, so with no
// OTEL_EXPORTER_OTLP_* endpoint spans are made, propagated and dropped; svc-fastify-edge-memory.ts: spans kept
// in the in-memory exporter, to show what holding them costs), or one of them alone (svc-fastify-edge-*.ts,
// `npm run bench -- edge-parts`: where the cost of the three goes).
import { inMemoryExporter, metricsPlugin, securityPlugin, tracingPlugin, type Plugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { startSvcBenchServer } from './svc-server.js';

export type EdgePart = 'security' | 'metrics' | 'tracing';

export const ALL_EDGE_PARTS: readonly EdgePart[] = ['security', 'metrics', 'tracing'];

export async function startEdgeServer(parts: readonly EdgePart[], keepSpans = false): Promise<void> {
  const plugins: Plugin[] = [];
  if (parts.includes('security')) plugins.push(securityPlugin());
  if (parts.includes('metrics')) plugins.push(metricsPlugin());
  if (parts.includes('tracing')) {
    plugins.push(
      tracingPlugin({ serviceName: 'bench', ...(keepSpans ? { exporter: inMemoryExporter() } : {}) }),
    );
  }
  await startSvcBenchServer({ adapter: fastifyPlugin, plugins });
}
