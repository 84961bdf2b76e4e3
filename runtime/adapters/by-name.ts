// Picks the adapter named in svc.config.yaml (`server.adapter`) at start-up. Each framework is imported
// only when chosen, so an application on Fastify never loads Express or Hono.
import type { Plugin } from '../app/app.js';
import type { ServerAdapter } from '../config/svc-config.js';
import { rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { ADAPTER_OPTION_KEYS, type AdapterOptions } from '../http/boot.js';

/**
 * The adapter plugin for `server.adapter`: `app.register(await adapterPlugin(config.server.adapter, { routes }))`.
 * Takes the options every adapter shares; use fastifyPlugin / expressPlugin / honoPlugin directly for a
 * framework's own options.
 */
export async function adapterPlugin(adapter: ServerAdapter, options: AdapterOptions = {}): Promise<Plugin> {
  // Only the shared options: a framework's own (`fastify`, `bodyLimit`) would work or fail depending on the
  // adapter the config names.
  rejectUnknownOptions(options, ADAPTER_OPTION_KEYS, 'adapterPlugin()');
  switch (adapter) {
    case 'fastify':
      return (await import('./fastify/index.js')).fastifyPlugin(options);
    case 'express':
      return (await import('./express/index.js')).expressPlugin(options);
    case 'hono':
      return (await import('./hono/index.js')).honoPlugin(options);
    default:
      throw invalidOption(
        'adapterPlugin()',
        'adapter',
        'fastify, express or hono',
        `got "${String(adapter)}"`,
      );
  }
}
