// tracingPlugin with an OpenTelemetry SDK registered by the application: the server span is started on the
// SDK's tracer, under the received parent, and ended with svc's attributes; svc's own exporter gets nothing.
import { afterEach, describe, expect, it } from 'vitest';
import {
  trace,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { createApp, inMemoryExporter, route, tracingPlugin } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';

interface Recorded {
  name: string;
  kind: unknown;
  parent: SpanContext | undefined;
  attributes: Record<string, unknown>;
  status: unknown;
  ended: boolean;
}

/** A tracer that records what svc asks of it, as an SDK's would. */
function recordingProvider(spans: Recorded[]): TracerProvider {
  const tracer: Tracer = {
    startSpan(name: string, options?: SpanOptions, context?: Context): Span {
      const record: Recorded = {
        name,
        kind: options?.kind,
        parent: context === undefined ? undefined : trace.getSpanContext(context),
        attributes: {},
        status: undefined,
        ended: false,
      };
      spans.push(record);
      const own: SpanContext = {
        traceId: record.parent?.traceId ?? 'a'.repeat(32),
        spanId: 'b'.repeat(16),
        traceFlags: 1,
      };
      const span = {
        spanContext: () => own,
        setAttributes: (attributes: Record<string, unknown>) => {
          Object.assign(record.attributes, attributes);
          return span;
        },
        setStatus: (status: unknown) => {
          record.status = status;
          return span;
        },
        end: () => {
          record.ended = true;
        },
      };
      return span as unknown as Span;
    },
    startActiveSpan: (() => undefined) as unknown as Tracer['startActiveSpan'],
  };
  return { getTracer: () => tracer };
}

afterEach(() => {
  trace.disable();
});

describe('tracingPlugin with a registered OpenTelemetry SDK', () => {
  it('starts the server span on the SDK tracer under the received parent and ends it with the attributes', async () => {
    const spans: Recorded[] = [];
    expect(trace.setGlobalTracerProvider(recordingProvider(spans))).toBe(true);
    const exporter = inMemoryExporter();
    const app = createApp()
      .register(tracingPlugin({ serviceName: 'notes', exporter }))
      .register(
        fastifyPlugin({
          onError: false,
          routes: [route({ method: 'GET', url: '/items/:id', handler: ({ params }) => params })],
        }),
      );
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const parent = `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01`;
      const response = await fetch(`${url}/items/7`, { headers: { traceparent: parent } });
      expect(response.status).toBe(200);
      expect(response.headers.get('traceparent')).toBe(`00-${'c'.repeat(32)}-${'b'.repeat(16)}-01`);
      expect(spans).toHaveLength(1);
      expect(spans[0]).toMatchObject({
        name: 'GET /items/:id',
        parent: { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), isRemote: true },
        attributes: { 'http.route': '/items/:id', 'http.response.status_code': 200 },
        ended: true,
      });
      // The SDK owns export: svc's own exporter stays empty.
      expect(exporter.spans).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});
