// The reference service: the spec's routes bound to their handlers, served by the Fastify adapter.
import { createApp, type App } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import type { SvcConfig } from '../generated/config.js';
import { routes } from '../generated/routes.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { MemoryNoteStore } from './modules/notes/notes.store.js';

export function buildApp(config: SvcConfig): App {
  const app = createApp({ name: config.name, version: config.version });
  app.register(
    fastifyPlugin({
      routes: [...routes({ ...createNoteHandlers(new MemoryNoteStore()) })],
    }),
  );
  return app;
}
