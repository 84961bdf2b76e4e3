// The reference service: the spec's routes bound to their handlers, served by the adapter svc.config.yaml
// names (`server.adapter: ${SVC_ADAPTER:-fastify}`).
import {
  adapterPlugin,
  createApp,
  healthPlugin,
  idempotencyPlugin,
  metricsPlugin,
  openapiPlugin,
  securityPlugin,
  tracingPlugin,
  type App,
} from 'svckit';
import type { SvcConfig } from '../generated/config.js';
import openapi from '../generated/openapi.json' with { type: 'json' };
import { routes } from '../generated/routes.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { MemoryNoteStore } from './modules/notes/notes.store.js';

export async function buildApp(config: SvcConfig): Promise<App> {
  const app = createApp({ name: config.name, version: config.version });
  const handlers = createNoteHandlers(new MemoryNoteStore());
  // Secure headers, a per-IP rate limit, probes, metrics and the API description; they move under `modules.edge` in svc.config.yaml with the edge issue.
  app.register(securityPlugin({ rateLimit: { limit: 1000, windowMs: 60_000 } }));
  app.register(healthPlugin());
  app.register(metricsPlugin());
  app.register(tracingPlugin({ serviceName: config.name }));
  // Keyed retries of authenticated POSTs replay; anonymous requests are never cached (seed 001).
  app.register(idempotencyPlugin());
  app.register(openapiPlugin({ document: openapi }));
  app.register(await adapterPlugin(config.server.adapter, { routes: [...routes({ ...handlers })] }));
  return app;
}
