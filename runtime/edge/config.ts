// The edge plugins svc.config.yaml enables under `modules.edge` (docs/spec.md#server-stores-modules):
// `edge: true` turns on all five with their defaults; a mapping turns on the plugins it names, each `true`
// or its options.
import type { Plugin } from '../app/app.js';
import { fromSettings, invalidSetting, moduleSettings } from '../config/module-settings.js';
import { healthPlugin, type HealthCheck } from './health/index.js';
import { metricsPlugin } from './metrics/index.js';
import { openapiPlugin } from './openapi/index.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { securityPlugin } from './security/index.js';
import { tracingPlugin } from './tracing/index.js';

export interface EdgeModuleContext {
  /** `service.name` of spans unless `tracing.serviceName` is set; usually the spec's `name`. */
  serviceName: string;
  /**
   * The generated OpenAPI document (generated/openapi.json), whose operations the served document keeps;
   * without it every route is described from its own schemas.
   */
  openapiDocument?: Readonly<Record<string, unknown>>;
  /** Readiness checks for GET /readyz: they are code, so the application hands them over here. */
  healthChecks?: Readonly<Record<string, HealthCheck>>;
  /** Where rate-limit buckets are counted (openStores().rateLimit); default in memory, per process. */
  rateLimitStore?: RateLimitStore;
}

const EDGE_PLUGINS = ['security', 'health', 'metrics', 'tracing', 'openapi'] as const;

/** The plugins `modules.edge` enables, in the order they should be registered. */
export function edgePlugins(setting: unknown, context: EdgeModuleContext): Plugin[] {
  const edge = moduleSettings(setting, 'edge');
  if (edge === undefined) return [];
  const all = setting === true;
  const unknown = Object.keys(edge).filter((key) => !(EDGE_PLUGINS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw invalidSetting('edge', `unknown plugin ${unknown.join(', ')}; known: ${EDGE_PLUGINS.join(', ')}.`);
  }
  const settingsOf = (name: (typeof EDGE_PLUGINS)[number]) =>
    all ? {} : moduleSettings(edge[name], `edge.${name}`);
  const plugins: Plugin[] = [];

  const security = settingsOf('security');
  if (security !== undefined) {
    const store = context.rateLimitStore;
    const options = store === undefined ? security : withRateLimitStore(security, store);
    plugins.push(fromSettings('edge.security', () => securityPlugin(options)));
  }
  const health = settingsOf('health');
  if (health !== undefined) {
    plugins.push(
      fromSettings('edge.health', () => healthPlugin({ ...health, checks: context.healthChecks ?? {} })),
    );
  }
  const metrics = settingsOf('metrics');
  if (metrics !== undefined) plugins.push(fromSettings('edge.metrics', () => metricsPlugin(metrics)));
  const tracing = settingsOf('tracing');
  if (tracing !== undefined) {
    plugins.push(
      fromSettings('edge.tracing', () => tracingPlugin({ serviceName: context.serviceName, ...tracing })),
    );
  }
  const openapi = settingsOf('openapi');
  if (openapi !== undefined) {
    // `title` and `tags` shape the document at `svc build`; only where it is served matters here. Without the
    // generated document, the served one describes the registered routes from their own schemas.
    const { title: _title, tags: _tags, ...served } = openapi;
    const document = context.openapiDocument;
    plugins.push(fromSettings('edge.openapi', () => openapiPlugin({ ...served, document })));
  }
  return plugins;
}

/** The security settings with a shared rate-limit store, kept beside the global limit when one is set. */
function withRateLimitStore(
  security: Record<string, unknown>,
  store: RateLimitStore,
): Record<string, unknown> {
  const rateLimit = security.rateLimit;
  if (
    rateLimit !== undefined &&
    (typeof rateLimit !== 'object' || rateLimit === null || Array.isArray(rateLimit))
  ) {
    return security; // securityPlugin names the bad value
  }
  return { ...security, rateLimit: { ...rateLimit, store } };
}
