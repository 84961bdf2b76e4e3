// The application: what code adds to svc.config.yaml. Everything else (the modules under `modules:`, the
// stores under `stores:`, the adapter `server.adapter` names) is composed by generated/service.ts from the
// spec. `svc make:resource <Name>` adds its module's handlers and plugin here.
import type { App } from 'svckit/core';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';

/** One handler per route of the spec, built from the service's pieces (`app`, `stores`, `auth`, `config`). */
export const handlers: ServiceOptions['handlers'] = () => ({
  ...createTaskHandlers(),
});

/** The app's own plugins, registered after the modules the spec enables. */
export const plugins: ServiceOptions['plugins'] = () => [];

/** The service with these handlers and plugins; tests pass their own options (a config, a logger). */
export function buildApp(options: Omit<ServiceOptions, 'handlers' | 'plugins'> = {}): Promise<App> {
  return createService({ handlers, plugins, ...options });
}
