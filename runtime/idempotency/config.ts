// The idempotency plugin svc.config.yaml enables under `modules.idempotency`
// (docs/spec.md#server-stores-modules): `true` for the defaults, or a mapping of options (header, methods,
// ttlMs, credentialHeaders, allowAnonymous).
import type { Plugin } from '../app/app.js';
import { fromSettings, moduleSettings } from '../config/module-settings.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from './memory-store.js';
import { idempotencyPlugin } from './plugin.js';
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
      const { ttlMs, ...rest } = settings;
      const retention = ttlMs === undefined ? DEFAULT_IDEMPOTENCY_TTL_MS : checkedTtl(ttlMs);
      return idempotencyPlugin({ ...rest, store: makeStore(retention) });
    }),
  ];
}

function checkedTtl(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new TypeError('ttlMs must be a whole number of milliseconds, 1 or more.');
}
