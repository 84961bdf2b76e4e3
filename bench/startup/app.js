// The app the start-up bench launches (bench/startup.ts): one GET route on Fastify, listening on port 0, with
// securityPlugin and healthPlugin when STARTUP_ENTRIES names an edge entry. STARTUP_ENTRIES (JSON) says
// where each part is imported from, so the same app measures the root entry (`svckit`) against the subpath
// entries (`svckit/core`, `svckit/edge`), from the TypeScript sources or from compiled JavaScript. Plain
// JavaScript, so the compiled run needs no TypeScript loader. Prints one JSON line and exits.
import { performance } from 'node:perf_hooks';

const entries = JSON.parse(process.env.STARTUP_ENTRIES ?? '{}');

const { createApp, route } = await import(entries.core);
const { fastifyPlugin } = await import(entries.fastify);
const edge = entries.edge === undefined ? undefined : await import(entries.edge);
const importedMs = performance.now();

const app = createApp({ name: 'startup', version: '1.0.0' });
if (edge !== undefined) {
  app.register(edge.securityPlugin());
  app.register(edge.healthPlugin());
}
app.register(
  fastifyPlugin({ routes: [route({ method: 'GET', url: '/hello', handler: () => ({ hello: 'world' }) })] }),
);
await app.listen({ port: 0, host: '127.0.0.1' });
const readyMs = performance.now();

// Live memory, not garbage waiting for a collection: the bench runs node with --expose-gc.
globalThis.gc?.();
const memory = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ importedMs, readyMs, rss: memory.rss, heapUsed: memory.heapUsed })}\n`,
);
await app.close();
