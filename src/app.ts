// The reference service: everything it serves is declared in svc.config.yaml (its stores, the modules under
// `modules:`, the routes) and composed by generated/service.ts; the app adds only what code must say: the
// handlers of the note routes, which keep the notes in the service's own database (migrations/).
import { passkeyDemoPlugin } from 'svckit/auth';
import type { App } from 'svckit/core';
import type { SvcConfig } from '../generated/config.js';
import { createService, type ServiceOptions } from '../generated/service.js';
import { createNoteHandlers } from './modules/notes/notes.handlers.js';
import { SqlNoteStore } from './modules/notes/notes.sql-store.js';

/** The note handlers on the SQL client of `stores.database` (an in-memory one with `memory`). */
export const handlers: ServiceOptions['handlers'] = (service) => ({
  ...createNoteHandlers(new SqlNoteStore(service.stores.sql)),
});

/**
 * The app's own plugins, registered after the modules the spec enables (`svc make:resource` adds here): the
 * passkey demo page, to try the passkey routes in a browser.
 */
export const plugins: ServiceOptions['plugins'] = () => [passkeyDemoPlugin()];

/** The service for `config`; tests pass their own options (a logger, an environment). */
export function buildApp(
  config: SvcConfig,
  options: Omit<ServiceOptions, 'handlers' | 'plugins' | 'config'> = {},
): Promise<App> {
  return createService({ handlers, plugins, config, ...options });
}
