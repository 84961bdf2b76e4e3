// The idempotency plugin svc.config.yaml enables under `modules.idempotency`
// (docs/spec.md#server-stores-modules): `true` for the defaults, or a mapping of options (header, methods,
// ttlMs, credentialHeaders, allowAnonymous).
import type { Plugin } from '../app/app.js';
import { fromSettings, moduleSettings } from '../config/module-settings.js';
import { idempotencyPlugin } from './plugin.js';

/** The plugin `modules.idempotency` enables, or none. */
export function idempotencyPlugins(setting: unknown): Plugin[] {
  const settings = moduleSettings(setting, 'idempotency');
  if (settings === undefined) return [];
  return [fromSettings('idempotency', () => idempotencyPlugin(settings))];
}
