// The `svckit/core` entry: the app kernel, the HTTP pipeline and its helpers, configuration, and
// adapterPlugin (which loads the adapter it names on demand), with none of the features. An app that imports
// its features from their own entries (`svckit/auth`, `svckit/edge`, `svckit/mcp`, ...) loads only those.
export * from './app/app.js';
export * from './app/container.js';
export * from './app/hooks.js';
export * from './app/metadata.js';
export * from './http/errors.js';
export type * from './http/types.js';
export { HTTP_METHODS } from './http/types.js';
export * from './http/http-errors.js';
/** svc's own error catalog as typed constructors (`svcErrors.AUTH_REQUIRED()`), for handlers that raise them. */
export { errors as svcErrors } from '../generated/modules/errors.js';
export { route, bindRoutes, assertRouteShape } from './http/route.js';
export type { RouteDefinition, RouteOptions, RouteTypes, RouteInput, JsonSchema } from './http/route.js';
export { createPipeline } from './http/pipeline.js';
export type { Pipeline, PipelineOptions, CompiledRoute, ErrorOrigin } from './http/pipeline.js';
export { createRequestContext } from './http/context.js';
export { toErrorResponse, publicDetails } from './http/envelope.js';
export type {
  ErrorBody,
  ErrorEnvelope,
  ErrorResponse,
  DetailsRedactor,
  ToErrorResponseOptions,
} from './http/envelope.js';
export { sanitizeDetails, MAX_ERROR_DETAILS_BYTES, MAX_ERROR_DETAILS_DEPTH } from './http/details.js';
export type { DetailsObject, DetailsValue } from './http/details.js';
export { redactSensitiveDetails, isSensitiveKey, SENSITIVE_KEY_PARTS, REDACTED } from './http/redact.js';
export { fixedCodeForStatus, frameworkClientError, neutralMessage } from './http/framework-errors.js';
export { stderrReporter, loggerReporter } from './http/report.js';
export type { ErrorReport, ErrorReporter } from './http/report.js';
export {
  GUARDED_META_KEYS,
  checkGuardedMeta,
  checkRouteConflicts,
  checkRouteMeta,
  routeLabel,
} from './http/meta-checks.js';
export type { AllowUnguardedMeta, GuardedMetaCheckOptions } from './http/meta-checks.js';
export { coreMetaValidator } from './http/core-meta.js';
export { isRouteVisible } from './http/visibility.js';
export { publishRoutes, prepareHttp } from './http/boot.js';
export type { AdapterOptions, PreparedHttp } from './http/boot.js';
export { parseFormEncoded } from './http/query.js';
export { parseBody, parseJsonBody, bodyKindOf, mediaTypeOf, isJsonMediaType } from './http/body.js';
export type { BodyKind } from './http/body.js';
export { coerceScalar, coerceField, coerceFields } from './http/coerce.js';
export { strongEtag, ifNoneMatchMatches } from './http/etag.js';
export {
  upload,
  startUpload,
  sanitizeFilename,
  matchesAllowedType,
  DEFAULT_UPLOAD_LIMITS,
  DEFAULT_MAX_FIELDS,
  DEFAULT_MAX_FIELD_BYTES,
  DEFAULT_MAX_HEADER_BYTES,
  MAX_FILENAME_BYTES,
} from './http/upload/index.js';
export type { UploadOptions, UploadSession, UploadFinish, StartUploadInput } from './http/upload/index.js';
export { rawBody, DEFAULT_RAW_BODY_LIMIT } from './http/raw-body.js';
export type { RawBodyOptions } from './http/raw-body.js';
export { stream, StreamResult } from './http/stream.js';
/** What sse() returns: a streamed response (the name the generated Handlers type uses for event streams). */
export type { StreamResult as SseResult } from './http/stream.js';
export type { StreamOptions, StreamSource } from './http/stream.js';
export { sse, encodeSseEvent } from './http/sse.js';
export type { SseEvent, SseOptions, SseProducer, SseStream } from './http/sse.js';
export { contentDisposition } from './http/content-disposition.js';
export { REQUEST_ID_PATTERN, requestIdFrom, correlationIdFrom } from './http/request-id.js';
export { MAX_VALIDATION_ISSUES, toIssues } from './http/validation/issues.js';
export { JSON_CONTENT_TYPE, TEXT_CONTENT_TYPE, BYTES_CONTENT_TYPE } from './http/reply-mapping.js';
export { createAjv } from '../shared/validation/ajv.js';
export { hookSlots, type HookSlots } from './http/hook-slots.js';
export { coercionPlan } from '../shared/validation/coercion-plan.js';
export * from './app/serve.js';
export { formatBootFailure, reportBootFailure, isBootRefusal, BOOT_DEBUG_ENV } from './app/boot-report.js';
export type { FormatBootFailureOptions, ReportBootFailureOptions } from './app/boot-report.js';
export * from './app/serve-mode.js';
export * from './config/index.js';
export { isProductionEnv } from './config/node-env.js';
export * from './log/index.js';
export { adapterPlugin } from './adapters/by-name.js';
