// `tracingPlugin(...)`: one server span per request svc answers. A received
// W3C `traceparent` is continued, the response carries the server span's own `traceparent`, and the trace id
// is on `request.context.traceId` for logs. Spans go to the configured exporter, or to the application's
// OpenTelemetry SDK when one is registered.
import type { Span } from '@opentelemetry/api';
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { errorFields } from '../../log/error-fields.js';
import { forwardingLogger } from '../../log/forwarding-logger.js';
import { existingHookSlots, hookSlots } from '../../http/hook-slots.js';
import type { RequestHook, Route } from '../../http/types.js';
import { DROP_SPANS, exporterFromEnv } from './default-exporter.js';
import { endOtelSpan, registeredTracer, startOtelSpan } from './otel.js';
import { nowUnixMs, type SpanExporter } from './span.js';
import {
  flagsOf,
  formatTraceparent,
  newSpanTraceparent,
  parseTraceparent,
  spanIdOf,
  traceIdOf,
} from './traceparent.js';

export { DROP_SPANS, exporterFromEnv } from './default-exporter.js';
export {
  inMemoryExporter,
  DEFAULT_IN_MEMORY_SPAN_LIMIT,
  type InMemoryExporter,
  type InMemoryExporterOptions,
} from './memory-exporter.js';
export {
  otlpHttpExporter,
  encodeOtlpJson,
  type OtlpHttpExporter,
  type OtlpHttpExporterOptions,
} from './otlp-exporter.js';
export type { FinishedSpan, SpanExporter } from './span.js';
export { parseTraceparent, formatTraceparent, type TraceParent } from './traceparent.js';

export interface TracingPluginOptions {
  /** `service.name` of exported spans. Default: 'svc'. */
  serviceName?: string;
  /**
   * Where finished spans go when no OpenTelemetry SDK is registered. Default: an OTLP/HTTP exporter to the
   * endpoint of OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT (with their `_HEADERS`)
   * when set, else none: spans are dropped while propagation keeps working (default-exporter.ts).
   */
  exporter?: SpanExporter;
}

export interface TracingPlugin extends Plugin {
  readonly exporter: SpanExporter;
}

/** The server span between the hook's onRequest and onResponse. */
interface OpenSpan {
  /** The span's own `traceparent`, as answered: its trace id, span id and flags. */
  traceparent: string;
  /** The received caller's span id; undefined for a root span. */
  parentSpanId: string | undefined;
  /** The SDK span, when an OpenTelemetry SDK is registered. */
  otel: Span | undefined;
}

/** The keys of TracingPluginOptions; any other is refused at creation. */
const TRACING_OPTIONS = optionKeys<TracingPluginOptions>({
  serviceName: true,
  exporter: true,
});

function spanName(method: string, route: Route | undefined): string {
  return route === undefined ? method : `${method} ${route.url}`;
}

const OWNER = 'tracingPlugin()';

export function tracingPlugin(options: TracingPluginOptions = {}): TracingPlugin {
  if (options === null || typeof options !== 'object') throw invalidOptions(OWNER);
  // `exporter` is an implementation (any object with export()), not options: its own keys are not checked.
  rejectUnknownOptions(options, TRACING_OPTIONS, OWNER);
  const serviceName = options.serviceName ?? 'svc';
  if (typeof serviceName !== 'string' || serviceName === '') {
    throw invalidOption(OWNER, 'serviceName', 'a non-empty string');
  }
  // The app's logger once the plugin is registered: the exporter made here reports through it too.
  const logger = forwardingLogger();
  const exporter = options.exporter ?? exporterFromEnv(process.env, logger);
  if (typeof exporter?.export !== 'function') {
    throw invalidOption(OWNER, 'exporter', 'an object with an export(span) method');
  }

  // Only requests this hook opened are closed: an earlier hook may answer before this one runs. The open span
  // waits on the request's context under this plugin's own symbol (hook-slots.ts).
  const openSpan = Symbol('svc:tracing open span');
  const hook: RequestHook = {
    name: 'svc:tracing',
    onRequest({ request, reply, route }) {
      const parent = parseTraceparent(request.headers.traceparent);
      const tracer = registeredTracer();
      let traceparent: string;
      let otel: Span | undefined;
      if (tracer === undefined) {
        traceparent = newSpanTraceparent(parent);
      } else {
        otel = startOtelSpan(tracer, spanName(request.method, route), parent);
        const { traceId, spanId, traceFlags } = otel.spanContext();
        traceparent = formatTraceparent({ traceId, spanId, flags: traceFlags.toString(16).padStart(2, '0') });
      }
      request.context.traceId = traceIdOf(traceparent);
      request.context.spanId = spanIdOf(traceparent);
      reply.header('traceparent', traceparent);
      // A span that no SDK and no exporter receives needs nothing at the response: propagation is done.
      if (otel === undefined && exporter === DROP_SPANS) return;
      const span: OpenSpan = { traceparent, parentSpanId: parent?.spanId, otel };
      hookSlots(request)[openSpan] = span;
    },
    onResponse({ request, route, status, durationMs }) {
      const slots = existingHookSlots(request);
      const span = slots?.[openSpan] as OpenSpan | undefined;
      if (slots === undefined || span === undefined) return;
      slots[openSpan] = undefined;
      const attributes: Record<string, string | number> = {
        'http.request.method': request.method,
        'http.response.status_code': status,
        'url.path': request.path,
      };
      if (route !== undefined) attributes['http.route'] = route.url;
      const failed = status >= 500;
      if (span.otel !== undefined) {
        endOtelSpan(span.otel, attributes, failed);
        return;
      }
      // The span covers the request's whole handling, which the response event measured: one clock reading.
      const endTimeUnixMs = nowUnixMs();
      try {
        exporter.export({
          serviceName,
          traceId: traceIdOf(span.traceparent),
          spanId: spanIdOf(span.traceparent),
          parentSpanId: span.parentSpanId,
          name: spanName(request.method, route),
          kind: 'server',
          startTimeUnixMs: endTimeUnixMs - durationMs,
          endTimeUnixMs,
          attributes,
          status: failed ? 'error' : 'unset',
          flags: flagsOf(span.traceparent),
        });
      } catch (error) {
        // An exporter must never fail a request; a broken one is still worth one line in the log.
        reportExporterFailure(error);
      }
    },
  };

  let reported = false;
  function reportExporterFailure(error: unknown): void {
    if (reported) return;
    reported = true;
    logger.warn('span exporter threw; further failures are not reported', { error: errorFields(error) });
  }

  return {
    name: 'svc:tracing',
    exporter,
    setup(app: App) {
      logger.attach(app.logger);
      app.metadata.add('http:request-hooks', hook);
      app.hooks.on('app:closing', async () => {
        try {
          await exporter.shutdown?.();
        } catch (error) {
          reportExporterFailure(error);
        }
      });
    },
  };
}
