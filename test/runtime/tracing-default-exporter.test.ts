// tracingPlugin's default exporter: the standard OpenTelemetry environment variables name an OTLP/HTTP
// endpoint (and its headers); without them spans are dropped rather than kept in memory.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DROP_SPANS, exporterFromEnv, tracingPlugin, type FinishedSpan, type OtlpHttpExporter } from 'svckit';

const SPAN: FinishedSpan = {
  serviceName: 'notes',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  parentSpanId: undefined,
  name: 'GET /notes',
  kind: 'server',
  startTimeUnixMs: 1_700_000_000_000.5,
  endTimeUnixMs: 1_700_000_000_002.25,
  attributes: { 'http.request.method': 'GET' },
  status: 'unset',
  flags: '01',
};

interface Received {
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A loopback collector; resolves its base URL and the posts it received. */
async function collector(): Promise<{ base: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url,
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'],
      });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function exportOne(env: Record<string, string>): Promise<void> {
  const exporter = exporterFromEnv(env) as OtlpHttpExporter;
  expect(exporter).not.toBe(DROP_SPANS);
  exporter.export(SPAN);
  await exporter.shutdown();
}

describe('exporterFromEnv', () => {
  it('drops spans when no endpoint is configured (blank values count as unset)', () => {
    expect(exporterFromEnv({})).toBe(DROP_SPANS);
    expect(exporterFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(DROP_SPANS);
  });

  it('is what tracingPlugin() uses without an exporter, read from the process environment', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', '');
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
    try {
      expect(tracingPlugin().exporter).toBe(DROP_SPANS);
      const { base, received } = await collector();
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', base);
      const exporter = tracingPlugin().exporter as OtlpHttpExporter;
      exporter.export(SPAN);
      await exporter.shutdown();
      expect(received.map((post) => post.path)).toEqual(['/v1/traces']);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('posts to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces with the configured headers', async () => {
    const { base, received } = await collector();
    await exportOne({
      OTEL_EXPORTER_OTLP_ENDPOINT: `${base}/`,
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc, x-tenant = acme',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    expect(received).toHaveLength(1);
    expect(received[0]?.path).toBe('/v1/traces');
    expect(received[0]?.headers.authorization).toBe('Bearer abc');
    expect(received[0]?.headers['x-tenant']).toBe('acme');
    expect(received[0]?.headers['content-type']).toBe('application/json');
    const span = received[0]?.body.resourceSpans[0]?.scopeSpans[0]?.spans[0];
    expect(span).toMatchObject({
      traceId: SPAN.traceId,
      startTimeUnixNano: '1700000000000500000',
      endTimeUnixNano: '1700000000002250000',
    });
  });

  it('takes the traces endpoint as a full URL, and its headers over the general ones', async () => {
    const { base, received } = await collector();
    await exportOne({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/never',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/custom/traces`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-key=general,x-other=kept',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-key=traces',
    });
    expect(received[0]?.path).toBe('/custom/traces');
    expect(received[0]?.headers['x-key']).toBe('traces');
    expect(received[0]?.headers['x-other']).toBe('kept');
  });

  it('refuses gRPC and malformed headers with CONFIG_INVALID naming the variable, a bad endpoint with a TypeError', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(() => exporterFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /"grpc".*4318/,
    );
    expect(() => exporterFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringMatching(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: .*\(from the environment\)$/),
      }),
    );
    expect(() => exporterFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    );
    expect(() => exporterFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'k=%E0%A4%A' })).toThrow(
      /percent-encoding/,
    );
    expect(() => exporterFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(TypeError);
  });
});
