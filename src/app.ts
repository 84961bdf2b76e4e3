// The reference service: the spec's routes bound to their handlers, served by the adapter svc.config.yaml
// names (`server.adapter: ${SVC_ADAPTER:-fastify}`).
import { adapterPlugin, createApp, edgePlugins, idempotencyPlugins, type App } from 'svckit';
import type { SvcConfig } from '../generated/config.js';
import openapi from '../generated/openapi.json' with { type: 'json' };
import { routes } from '../generated/routes.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { MemoryNoteStore } from './modules/notes/notes.store.js';

export async function buildApp(config: SvcConfig): Promise<App> {
  const app = createApp({ name: config.name, version: config.version });
  const handlers = createNoteHandlers(new MemoryNoteStore());
  // The edge plugins and idempotency keys svc.config.yaml enables under `modules`.
  const modules = [
    ...edgePlugins(config.modules.edge, { serviceName: config.name, openapiDocument: openapi }),
    ...idempotencyPlugins(config.modules.idempotency),
  ];
  for (const plugin of modules) app.register(plugin);
  app.register(await adapterPlugin(config.server.adapter, { routes: [...routes({ ...handlers })] }));
  return app;
}
