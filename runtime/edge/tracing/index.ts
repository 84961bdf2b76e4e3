// `tracingPlugin(...)` (seed 001 "Edge plugin options"): one server span per request svc answers. A received
// W3C `traceparent` is continued, the response carries the server span's own `traceparent`, and the trace id
// is on `request.context.traceId` for logs. Spans go to the configured exporter, or to the application's
// OpenTelemetry SDK when one is registered.
import type { Span } from '@opentelemetry/api';
import type { App, Plugin } from '../../app/app.js';
import type { RequestHook, Route, SvcRequest } from '../../http/types.js';
import { inMemoryExporter } from './memory-exporter.js';
import { endOtelSpan, registeredTracer, startOtelSpan } from './otel.js';
import { nowUnixNano, type SpanExporter } from './span.js';
import {
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  type TraceParent,
} from './traceparent.js';

export { inMemoryExporter, DEFAULT_IN_MEMORY_SPAN_LIMIT, type InMemoryExporter } from './memory-exporter.js';
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
  /** Where finished spans go when no OpenTelemetry SDK is registered. Default: an in-memory exporter. */
  exporter?: SpanExporter;
}

export interface TracingPlugin extends Plugin {
  readonly exporter: SpanExporter;
}

/** No trace flags were received: svc records every span it starts, so it marks them sampled. */
const SAMPLED = '01';

interface OpenSpan {
  parent: TraceParent | undefined;
  self: TraceParent;
  startTimeUnixNano: bigint;
  otel: Span | undefined;
}

function spanName(method: string, route: Route | undefined): string {
  return route === undefined ? method : `${method} ${route.url}`;
}

export function tracingPlugin(options: TracingPluginOptions = {}): TracingPlugin {
  if (options === null || typeof options !== 'object')
    throw new TypeError('tracingPlugin(): options must be an object.');
  const serviceName = options.serviceName ?? 'svc';
  if (typeof serviceName !== 'string' || serviceName === '') {
    throw new TypeError('tracingPlugin(): serviceName must be a non-empty string.');
  }
  const exporter = options.exporter ?? inMemoryExporter();
  if (typeof exporter?.export !== 'function') {
    throw new TypeError('tracingPlugin(): exporter must have an export(span) method.');
  }

  // Only requests this hook opened are closed: an earlier hook may answer before this one runs.
  const open = new WeakMap<SvcRequest, OpenSpan>();
  const hook: RequestHook = {
    name: 'svc:tracing',
    onRequest({ request, reply, route }) {
      const parent = parseTraceparent(request.headers.traceparent);
      const tracer = registeredTracer();
      let otel: Span | undefined;
      let self: TraceParent;
      if (tracer !== undefined) {
        otel = startOtelSpan(tracer, spanName(request.method, route), parent);
        const context = otel.spanContext();
        self = {
          traceId: context.traceId,
          spanId: context.spanId,
          flags: context.traceFlags.toString(16).padStart(2, '0'),
        };
      } else {
        self = {
          traceId: parent?.traceId ?? newTraceId(),
          spanId: newSpanId(),
          flags: parent?.flags ?? SAMPLED,
        };
      }
      open.set(request, { parent, self, startTimeUnixNano: nowUnixNano(), otel });
      request.context.traceId = self.traceId;
      request.context.spanId = self.spanId;
      reply.header('traceparent', formatTraceparent(self));
    },
    onResponse({ request, route, status }) {
      const span = open.get(request);
      if (span === undefined) return;
      open.delete(request);
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
      try {
        exporter.export({
          serviceName,
          traceId: span.self.traceId,
          spanId: span.self.spanId,
          parentSpanId: span.parent?.spanId,
          name: spanName(request.method, route),
          kind: 'server',
          startTimeUnixNano: span.startTimeUnixNano.toString(),
          endTimeUnixNano: nowUnixNano().toString(),
          attributes,
          status: failed ? 'error' : 'unset',
          flags: span.self.flags,
        });
      } catch (error) {
        // An exporter must never fail a request; a broken one is still worth one line on stderr.
        reportExporterFailure(error);
      }
    },
  };

  let reported = false;
  function reportExporterFailure(error: unknown): void {
    if (reported) return;
    reported = true;
    process.stderr.write(
      `svckit tracing: exporter threw (${error instanceof Error ? error.message : String(error)}).\n`,
    );
  }

  return {
    name: 'svc:tracing',
    exporter,
    setup(app: App) {
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
