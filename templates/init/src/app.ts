// The application: the handlers of the routes svc.config.yaml declares. Everything else (the modules under
// `modules:`, the stores under `stores:`, the adapter `server.adapter` names) is composed by
// generated/service.ts from the spec.
import type { App } from 'svckit/core';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createTaskHandlers } from './modules/tasks/tasks.handlers.js';

/** One handler per route; a function of the service's pieces (`stores`, `auth`, `config`) when they need them. */
export const handlers: ServiceOptions['handlers'] = () => createTaskHandlers();

/** The service with these handlers; tests pass their own options (a config, a logger). */
export function buildApp(options: Omit<ServiceOptions, 'handlers'> = {}): Promise<App> {
  return createService({ handlers, ...options });
}
