// The application: the spec's routes bound to their handlers, served by the Fastify adapter.
import { createApp, type App } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import type { SvcConfig } from '../generated/config.js';
import { routes } from '../generated/routes.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';

export function buildApp(config: SvcConfig): App {
  const app = createApp({ name: config.name, version: config.version });
  app.register(fastifyPlugin({ routes: [...routes({ ...createTaskHandlers() })] }));
  return app;
}
