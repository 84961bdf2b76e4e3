// Server-sent events on every adapter: framing, headers kept, heartbeats,
// maximum duration, client disconnects and producer failures.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { route, sse, type ErrorReport, type SseStream } from 'svckit';
import { adapters, call, withServer } from './harness.js';

/** Opens an event stream and collects its text until `done` says so; resolves with the response and text. */
function readEvents(
  url: string,
  done: (text: string) => boolean,
): Promise<{ response: IncomingMessage; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        headers: { accept: 'text/event-stream' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (done(text)) {
            req.destroy();
            resolve({ response, text });
          }
        });
        response.on('end', () => resolve({ response, text }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const until = async (condition: () => boolean, timeoutMs = 5000) => {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.each(adapters)('sse() on $name', (adapter) => {
  it('sends events in text/event-stream framing with the stream headers', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/events',
        handler: () =>
          sse((events) => {
            events.send({ data: 'plain' });
            events.send({ event: 'update', id: '7', data: { n: 1 } });
            events.send({ data: 'two\nlines' });
            events.close();
          }),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const { response, text } = await readEvents(`${url}/events`, () => false);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(text).toBe(
        ': stream open\n\n' +
          'data: plain\n\n' +
          'event: update\nid: 7\ndata: {"n":1}\n\n' +
          'data: two\ndata: lines\n\n',
      );
    });
  });

  it('keeps headers set before the stream (request id, CORS and rate-limit headers)', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/events',
        handler: ({ reply }) => {
          reply.header('access-control-allow-origin', 'https://app.example');
          reply.header('x-ratelimit-remaining', '9');
          return sse((events) => events.close());
        },
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/events`, { headers: { 'x-request-id': 'req-42' } });
      expect(response.headers.get('x-request-id')).toBe('req-42');
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('9');
    });
  });

  it('sends heartbeat comments every heartbeatMs and ends after maxDurationMs', async () => {
    let closed = false;
    const routes = [
      route({
        method: 'GET',
        url: '/events',
        handler: () =>
          sse(
            (events) => {
              events.onClose(() => {
                closed = true;
              });
            },
            { heartbeatMs: 40, maxDurationMs: 250 },
          ),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const started = Date.now();
      const { text } = await readEvents(`${url}/events`, () => false);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(200);
      expect(elapsed).toBeLessThan(3000);
      expect(text.split(': heartbeat\n\n').length - 1).toBeGreaterThanOrEqual(2);
      expect(closed).toBe(true);
    });
  });

  it('tells the producer when the client goes away, and send() then returns false', async () => {
    let stream: SseStream | undefined;
    let closedBy = '';
    const routes = [
      route({
        method: 'GET',
        url: '/events',
        handler: () =>
          sse((events) => {
            stream = events;
            events.onClose(() => {
              closedBy = 'client';
            });
            events.send({ data: 'hello' });
          }),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      await readEvents(`${url}/events`, (text) => text.includes('data: hello'));
      await until(() => closedBy === 'client');
      expect(stream?.closed).toBe(true);
      expect(stream?.send({ data: 'late' })).toBe(false);
    });
  });

  it('answers a producer that throws at once with the error envelope', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/events',
        handler: () =>
          sse(() => {
            throw new Error('no subscription');
          }),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/events`);
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' } });
    });
  });

  it('cuts the stream when the producer fails later and reports STREAM_FAILED once', async () => {
    const reports: ErrorReport[] = [];
    const routes = [
      route({
        method: 'GET',
        url: '/events',
        handler: () =>
          sse(async (events) => {
            events.send({ data: 'one' });
            await new Promise((resolve) => setTimeout(resolve, 30));
            throw new Error('upstream gone');
          }),
      }),
    ];
    await withServer(
      adapter,
      { routes, options: { onError: (report: ErrorReport) => reports.push(report) } },
      async (url) => {
        const response = await fetch(`${url}/events`);
        expect(response.status).toBe(200);
        await expect(response.text()).rejects.toThrow();
        await until(() => reports.length > 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(reports.map((report) => report.code)).toEqual(['STREAM_FAILED']);
      },
    );
  });
});
