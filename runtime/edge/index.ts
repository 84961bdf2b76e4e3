// Edge plugins (seed 001 "Edge routes", "Edge plugin options"): public routes and cross-cutting behaviour
// every production API needs, each one `app.register(...)` away.
export { healthPlugin, readiness, DEFAULT_HEALTH_CHECK_TIMEOUT_MS } from './health/index.js';
export type { HealthCheck, HealthCheckResult, HealthPluginOptions, ReadinessReport } from './health/index.js';
export { openapiPlugin, finishDocument } from './openapi/index.js';
export type { OpenapiPluginOptions, OpenApiTag } from './openapi/index.js';
export {
  securityPlugin,
  ALWAYS_EXPOSED_HEADERS,
  DEFAULT_CONTENT_SECURITY_POLICY,
  DEFAULT_CORS_MAX_AGE_SECONDS,
  DEFAULT_CORS_METHODS,
  DEFAULT_HSTS,
} from './security/index.js';
export type { CorsOptions, SecureHeadersOptions, SecurityPluginOptions } from './security/index.js';
