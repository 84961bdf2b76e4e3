// The application: the spec's routes bound to their handlers, served by the adapter svc.config.yaml names
// (`server.adapter`: fastify, express or hono).
import { adapterPlugin, createApp, type App } from 'svckit/core';
import type { SvcConfig } from '../generated/config.js';
import { routes } from '../generated/routes.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';

export async function buildApp(config: SvcConfig): Promise<App> {
  const app = createApp({ name: config.name, version: config.version });
  app.register(
    await adapterPlugin(config.server.adapter, { routes: [...routes({ ...createTaskHandlers() })] }),
  );
  return app;
}
