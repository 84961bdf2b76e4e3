// The idempotency plugin svc.config.yaml enables under `modules.idempotency`
// (docs/spec.md#server-stores-modules): `true` for the defaults, or a mapping of options (header, methods,
// ttlMs, credentialHeaders, allowAnonymous).
import type { Plugin } from '../app/app.js';
import { fromSettings, moduleSettings } from '../config/module-settings.js';
import { idempotencyPlugin, idempotencyTtl } from './plugin.js';
import type { IdempotencyStore } from './store.js';

export interface IdempotencyModuleContext {
  /** A shared store keeping keys `ttlMs` (openStores().idempotency); default in memory, per process. */
  store?: (ttlMs: number) => IdempotencyStore;
}

/** The plugin `modules.idempotency` enables, or none. */
export function idempotencyPlugins(setting: unknown, context: IdempotencyModuleContext = {}): Plugin[] {
  const settings = moduleSettings(setting, 'idempotency');
  if (settings === undefined) return [];
  const makeStore = context.store;
  return [
    fromSettings('idempotency', () => {
      if (makeStore === undefined) return idempotencyPlugin(settings);
      // The shared store keeps keys for the configured retention; the plugin refuses `ttlMs` beside a store.
      const { ttlMs, ...rest } = settings;
      return idempotencyPlugin({ ...rest, store: makeStore(idempotencyTtl(ttlMs)) });
    }),
  ];
}
