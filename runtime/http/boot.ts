// The boot phase every adapter shares: read the metadata buckets, refuse misconfigured routes, build the
// pipeline and specialise it per route. Adapters then only map their framework onto the result.
import type { App } from '../app/app.js';
import { optionKeys } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { coreMetaValidator } from './core-meta.js';
import {
  checkGuardedMeta,
  checkRouteConflicts,
  checkRouteMeta,
  type AllowUnguardedMeta,
} from './meta-checks.js';
import { createPipeline, type CompiledRoute, type Pipeline } from './pipeline.js';
import type { ErrorReporter } from './report.js';
import { RouteTable } from './route-table.js';
import type { Route } from './types.js';

/** Options every adapter plugin takes. */
export interface AdapterOptions {
  /** Routes this adapter publishes to `http:routes` (default none). */
  routes?: readonly Route[];
  /** true waives every unclaimed guarded meta key, a list waives the named ones; never waives meta validators. */
  allowUnguardedMeta?: AllowUnguardedMeta;
  /** false: no neutral 404/405 handler is mounted. Default true. */
  notFound?: boolean;
  /** Receives every 5xx and unexpected error; default one line through the app's logger; false silences. */
  onError?: ErrorReporter | false;
}

/** The keys of AdapterOptions, in the order error messages list them. */
export const ADAPTER_OPTION_KEYS = optionKeys<AdapterOptions>({
  routes: true,
  allowUnguardedMeta: true,
  notFound: true,
  onError: true,
});

/** Setup step of an adapter: publish its routes and the core meta validator. `owner` names the adapter in errors. */
export function publishRoutes(app: App, options: AdapterOptions, owner: string): void {
  if (options.routes !== undefined && !Array.isArray(options.routes)) {
    throw invalidOption(owner, 'routes', 'an array of routes (route() or the generated routes())');
  }
  app.metadata.add('http:routes', ...(options.routes ?? []));
  app.metadata.add('http:meta-validators', coreMetaValidator);
}

export interface PreparedHttp {
  pipeline: Pipeline;
  routes: CompiledRoute[];
  table: RouteTable;
}

/** Boot step of an adapter: checks, then one specialised pipeline per route. Throws BootErrors. */
export function prepareHttp(app: App, options: AdapterOptions): PreparedHttp {
  const metadata = app.metadata;
  const routes = metadata.list('http:routes');
  checkRouteConflicts(routes);
  checkRouteMeta(routes, metadata.list('http:meta-validators'));
  checkGuardedMeta(routes, {
    claims: metadata.list('http:guarded-meta'),
    extraKeys: metadata.list('http:guarded-meta-keys'),
    allowUnguardedMeta: options.allowUnguardedMeta,
  });
  const pipeline = createPipeline({
    enrichers: metadata.list('http:enrichers'),
    guards: metadata.list('http:guards'),
    container: app.container,
    onError: options.onError,
    logger: app.logger,
    hooks: metadata.list('http:request-hooks'),
  });
  return { pipeline, routes: routes.map((route) => pipeline.compile(route)), table: new RouteTable(routes) };
}
