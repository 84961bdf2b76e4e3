// Edge plugins: public routes and cross-cutting behaviour
// every production API needs, each one `app.register(...)` away.
export { edgePlugins, type EdgeModuleContext } from './config.js';
export { healthPlugin, readiness, DEFAULT_HEALTH_CHECK_TIMEOUT_MS } from './health/index.js';
export type { HealthCheck, HealthCheckResult, HealthPluginOptions, ReadinessReport } from './health/index.js';
export { metricsPlugin, DEFAULT_DURATION_BUCKETS, DEFAULT_METRICS_PATH } from './metrics/index.js';
export type { MetricsPlugin, MetricsPluginOptions } from './metrics/index.js';
export { openapiPlugin, finishDocument } from './openapi/index.js';
export type { OpenapiPluginOptions, OpenApiTag } from './openapi/index.js';
export * from './tracing/index.js';
export {
  securityPlugin,
  ALWAYS_EXPOSED_HEADERS,
  DEFAULT_CONTENT_SECURITY_POLICY,
  DEFAULT_CORS_MAX_AGE_SECONDS,
  DEFAULT_CORS_METHODS,
  DEFAULT_HSTS,
  DOCUMENT_SECURE_HEADERS,
} from './security/index.js';
export type { CorsOptions, SecureHeadersOptions, SecurityPluginOptions } from './security/index.js';
export {
  MemoryRateLimitStore,
  DEFAULT_RATE_LIMIT_MAX_ENTRIES,
  RATE_LIMIT_HEADERS,
  leaseSize,
  type MemoryRateLimitStoreOptions,
  type RateLimitHit,
  type RateLimitLease,
  type RateLimitKey,
  type RateLimitKeyFunction,
  type RateLimitOptions,
  type RateLimitStore,
  type RouteRateLimit,
} from './rate-limit/index.js';
