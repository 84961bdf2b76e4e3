// tracingPlugin on every adapter: a server span per request, a received W3C
// traceparent is continued, the response carries the server span's traceparent, OTLP/HTTP JSON export.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  collectingLogger,
  HttpError,
  inMemoryExporter,
  otlpHttpExporter,
  route,
  tracingPlugin,
} from 'svckit';
import { adapters, call, withServer } from './harness.js';

const routes = [
  route({
    method: 'GET',
    url: '/notes/:id',
    handler: ({ params }) => ({ id: (params as { id: string }).id }),
  }),
  route({
    method: 'GET',
    url: '/broken',
    handler: () => {
      throw new HttpError(503, 'DOWN', 'down');
    },
  }),
];

const RECEIVED_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const RECEIVED_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function parts(header: string | null): { traceId: string; spanId: string; flags: string } {
  const match = TRACEPARENT.exec(header ?? '');
  if (match === null) throw new Error(`bad traceparent ${String(header)}`);
  return { traceId: match[1] ?? '', spanId: match[2] ?? '', flags: match[3] ?? '' };
}

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  startTimeUnixNano: string;
  attributes: unknown[];
}
interface OtlpBody {
  resourceSpans: Array<{ resource: { attributes: unknown[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

/** A local collector recording the JSON bodies posted to it. */
async function startCollector(): Promise<{ url: string; bodies: unknown[]; close(): Promise<void> }> {
  const bodies: unknown[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      bodies.push({
        path: request.url,
        contentType: request.headers['content-type'],
        json: JSON.parse(text),
      });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(adapters)('tracingPlugin on $name', (adapter) => {
  it('continues a received traceparent and returns the server span in the response', async () => {
    const exporter = inMemoryExporter();
    await withServer(
      adapter,
      { routes, plugins: [tracingPlugin({ serviceName: 'notes', exporter })] },
      async (url) => {
        const response = await call(`${url}/notes/7?q=secret`, {
          headers: { traceparent: `00-${RECEIVED_TRACE}-${RECEIVED_SPAN}-01` },
        });
        expect(response.status).toBe(200);
        const returned = parts(response.headers.get('traceparent'));
        expect(returned.traceId).toBe(RECEIVED_TRACE);
        expect(returned.spanId).not.toBe(RECEIVED_SPAN);
        expect(returned.flags).toBe('01');
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(exporter.spans).toHaveLength(1);
        const [span] = exporter.spans;
        expect(span).toMatchObject({
          serviceName: 'notes',
          traceId: RECEIVED_TRACE,
          spanId: returned.spanId,
          parentSpanId: RECEIVED_SPAN,
          name: 'GET /notes/:id',
          kind: 'server',
          status: 'unset',
          attributes: {
            'http.request.method': 'GET',
            'http.route': '/notes/:id',
            'http.response.status_code': 200,
            'url.path': '/notes/7',
          },
        });
        expect(span?.endTimeUnixMs).toBeGreaterThanOrEqual(span?.startTimeUnixMs ?? Infinity);
        expect(Math.abs((span?.startTimeUnixMs ?? 0) - Date.now())).toBeLessThan(60_000);
      },
    );
  });

  it('propagates with the default exporter: a child of the caller, sampled roots, the ids on the context', async () => {
    const whoami = route({
      method: 'GET',
      url: '/whoami',
      handler: ({ context }) => ({ traceId: context.traceId, spanId: context.spanId }),
    });
    // No exporter and no OTEL_EXPORTER_OTLP_* endpoint: spans are dropped, propagation still works.
    await withServer(adapter, { routes: [whoami], plugins: [tracingPlugin()] }, async (url) => {
      const child = await call(`${url}/whoami`, {
        headers: { traceparent: `00-${RECEIVED_TRACE}-${RECEIVED_SPAN}-00` },
      });
      const returned = parts(child.headers.get('traceparent'));
      expect(returned).toMatchObject({ traceId: RECEIVED_TRACE, flags: '00' });
      expect(returned.spanId).not.toBe(RECEIVED_SPAN);
      expect(child.json).toEqual({ traceId: returned.traceId, spanId: returned.spanId });

      const seen = new Set<string>();
      for (let index = 0; index < 40; index++) {
        const root = await call(`${url}/whoami`);
        const ids = parts(root.headers.get('traceparent'));
        expect(ids.flags).toBe('01');
        expect(ids.traceId).not.toMatch(/^0+$/);
        expect(ids.spanId).not.toMatch(/^0+$/);
        expect(root.json).toEqual({ traceId: ids.traceId, spanId: ids.spanId });
        seen.add(ids.traceId).add(ids.spanId);
      }
      expect(seen.size).toBe(80);
    });
  });

  it.each([
    ['garbage', 'not-a-traceparent'],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${RECEIVED_SPAN}-01`],
    ['all-zero parent id', `00-${RECEIVED_TRACE}-${'0'.repeat(16)}-01`],
    ['unknown version', `ff-${RECEIVED_TRACE}-${RECEIVED_SPAN}-01`],
    ['upper-case hex', `00-${RECEIVED_TRACE.toUpperCase()}-${RECEIVED_SPAN}-01`],
  ])('starts a new trace for an invalid traceparent (%s)', async (_label, header) => {
    const exporter = inMemoryExporter();
    await withServer(adapter, { routes, plugins: [tracingPlugin({ exporter })] }, async (url) => {
      const response = await call(`${url}/notes/1`, { headers: { traceparent: header } });
      expect(response.status).toBe(200);
      const returned = parts(response.headers.get('traceparent'));
      expect(returned.traceId).not.toBe(RECEIVED_TRACE);
      expect(returned.traceId).not.toMatch(/^0+$/);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(exporter.spans[0]?.parentSpanId).toBeUndefined();
      expect(exporter.spans[0]?.traceId).toBe(returned.traceId);
    });
  });

  it('records one span per request, 404s as the bare method and 5xx as errors', async () => {
    const exporter = inMemoryExporter();
    await withServer(adapter, { routes, plugins: [tracingPlugin({ exporter })] }, async (url) => {
      const first = await call(`${url}/notes/1`);
      const second = await call(`${url}/notes/2`);
      expect(parts(first.headers.get('traceparent')).traceId).not.toBe(
        parts(second.headers.get('traceparent')).traceId,
      );
      expect((await call(`${url}/nowhere`)).status).toBe(404);
      expect((await call(`${url}/broken`)).status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const spans = exporter.spans;
      expect(spans.map((span) => span.name)).toEqual([
        'GET /notes/:id',
        'GET /notes/:id',
        'GET',
        'GET /broken',
      ]);
      expect(spans[2]?.attributes).toEqual({
        'http.request.method': 'GET',
        'http.response.status_code': 404,
        'url.path': '/nowhere',
      });
      expect(spans[2]?.status).toBe('unset');
      expect(spans[3]?.status).toBe('error');
    });
  });

  it('exports OTLP/HTTP JSON to a collector, flushed when the app closes', async () => {
    const collector = await startCollector();
    try {
      const exporter = otlpHttpExporter({ url: collector.url, intervalMs: 60_000 });
      await withServer(
        adapter,
        { routes, plugins: [tracingPlugin({ serviceName: 'notes', exporter })] },
        async (url) => {
          expect((await call(`${url}/notes/1`)).status).toBe(200);
          expect((await call(`${url}/nowhere`)).status).toBe(404);
        },
      );
      expect(collector.bodies).toHaveLength(1);
      const [body] = collector.bodies as Array<{ path: string; contentType: string; json: OtlpBody }>;
      expect(body?.path).toBe('/v1/traces');
      expect(body?.contentType).toBe('application/json');
      const resource = body?.json.resourceSpans[0];
      if (resource === undefined) throw new Error('no resourceSpans');
      expect(resource.resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'notes' },
      });
      const spans = resource.scopeSpans[0]?.spans ?? [];
      expect(spans).toHaveLength(2);
      expect(spans[0]).toMatchObject({ name: 'GET /notes/:id', kind: 2, status: { code: 0 } });
      expect(spans[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spans[0]?.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(spans[0]?.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(spans[0]?.attributes).toContainEqual({
        key: 'http.response.status_code',
        value: { intValue: '200' },
      });
    } finally {
      await collector.close();
    }
  });

  it('answers requests normally while the collector is down, and logs the failure once', async () => {
    const collector = await startCollector();
    const deadUrl = collector.url;
    await collector.close();
    const logger = collectingLogger();
    const exporter = otlpHttpExporter({ url: deadUrl, batchSize: 1, timeoutMs: 1000, logger });
    await withServer(adapter, { routes, plugins: [tracingPlugin({ exporter })] }, async (url) => {
      for (let index = 0; index < 3; index++) expect((await call(`${url}/notes/1`)).status).toBe(200);
    });
    // Closing the app flushed the exporter: every post failed, one line says so.
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        msg: 'exporting spans failed; further failures are not reported',
        fields: { url: deadUrl, reason: expect.any(String) },
      },
    ]);
  });
});
