// Bridge to an OpenTelemetry SDK the application registered: svc's server span then becomes an SDK span (its
// processors and exporters apply) instead of going to svc's own exporter.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  ProxyTracerProvider,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { TraceParent } from './traceparent.js';

/** The SDK tracer, or undefined while no SDK is registered (the global provider is the empty proxy). */
export function registeredTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider) {
    // The proxy only has a delegate tracer once an SDK called setGlobalTracerProvider.
    return provider.getDelegateTracer('svckit');
  }
  return provider.getTracer('svckit');
}

export function startOtelSpan(tracer: Tracer, name: string, parent: TraceParent | undefined): Span {
  const context =
    parent === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.spanId,
          traceFlags: Number.parseInt(parent.flags, 16),
          isRemote: true,
        });
  return tracer.startSpan(name, { kind: SpanKind.SERVER }, context);
}

export function endOtelSpan(span: Span, attributes: Record<string, string | number>, error: boolean): void {
  span.setAttributes(attributes);
  if (error) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
