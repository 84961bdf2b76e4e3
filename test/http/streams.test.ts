// Streamed responses on every adapter: sources, headers, Content-Disposition,
// HEAD, failures before and after the head, backpressure and clients that go away.
import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { route, stream, type ErrorReport } from 'svckit';
import { adapters, call, rawRequest, withServer } from './harness.js';

const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 13, 10, 45, 45, 200]);

async function* chunks(parts: Array<Uint8Array | string>) {
  for (const part of parts) yield part;
}

/** An endless source counting what it produced and telling when it was stopped. */
function endless(state: { produced: number; stopped: boolean }): AsyncIterable<Uint8Array> {
  const chunk = Buffer.alloc(64 * 1024, 97);
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          state.produced += chunk.length;
          yield chunk;
        }
      } finally {
        state.stopped = true;
      }
    },
  };
}

const until = async (condition: () => boolean, timeoutMs = 5000) => {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.each(adapters)('stream() on $name', (adapter) => {
  it('streams a node Readable byte for byte with the default content type and status 200', async () => {
    const routes = [route({ method: 'GET', url: '/file', handler: () => stream(Readable.from([bytes])) })];
    await withServer(adapter, { routes }, async (url) => {
      const response = await fetch(`${url}/file`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
    });
  });

  it('accepts web ReadableStreams and async iterables of bytes or strings', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/web',
        handler: () => stream(new Blob([bytes]).stream(), { contentType: 'application/x-test' }),
      }),
      route({
        method: 'GET',
        url: '/iterable',
        handler: () => stream(chunks(['ab', Buffer.from('cd'), 'é'])),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const web = await fetch(`${url}/web`);
      expect(web.headers.get('content-type')).toBe('application/x-test');
      expect(Buffer.from(await web.arrayBuffer())).toEqual(bytes);
      expect(await (await fetch(`${url}/iterable`)).text()).toBe('abcdé');
    });
  });

  it('streams a file from disk and sends Content-Length when given', async () => {
    const path = new URL(import.meta.url).pathname;
    const routes = [
      route({
        method: 'GET',
        url: '/self',
        handler: async () => {
          const { size } = await import('node:fs/promises').then((fs) => fs.stat(path));
          return stream(createReadStream(path), { contentType: 'text/plain', contentLength: size });
        },
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, { method: 'GET', path: '/self' });
      const { readFile } = await import('node:fs/promises');
      expect(response.body).toBe(await readFile(path, 'utf8'));
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.body)));
      expect(response.headers['transfer-encoding']).toBeUndefined();
    });
  });

  it('offers a download with a sanitised, RFC 5987 encoded filename and an ASCII fallback', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/download/:kind',
        handler: ({ params }) => {
          const kind = (params as { kind: string }).kind;
          if (kind === 'ascii') return stream(chunks(['x']), { filename: 'report.pdf' });
          if (kind === 'utf8')
            return stream(chunks(['x']), { filename: 'résumé €.txt', disposition: 'inline' });
          // `disposition` is read only with a filename: alone it sends no Content-Disposition.
          if (kind === 'unnamed') return stream(chunks(['x']), { disposition: 'attachment' });
          return stream(chunks(['x']), { filename: '../../etc/pass\r\nwd\u202e.txt' });
        },
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const ascii = await fetch(`${url}/download/ascii`);
      expect(ascii.headers.get('content-disposition')).toBe('attachment; filename="report.pdf"');
      const utf8 = await fetch(`${url}/download/utf8`);
      expect(utf8.headers.get('content-disposition')).toBe(
        `inline; filename="r_sum_ _.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%82%AC.txt`,
      );
      const hostile = await fetch(`${url}/download/hostile`);
      expect(hostile.headers.get('content-disposition')).toBe('attachment; filename="passwd.txt"');
      const unnamed = await fetch(`${url}/download/unnamed`);
      expect(unnamed.status).toBe(200);
      expect(unnamed.headers.get('content-disposition')).toBeNull();
      expect(await unnamed.text()).toBe('x');
    });
  });

  it('strips CR and LF from extra headers, so no header can be injected', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/headers',
        handler: () =>
          stream(chunks(['x']), {
            headers: { 'x-note': 'a\r\nset-cookie: stolen=1', 'cache-control': 'no-store' },
            contentType: 'text/plain\r\nx-evil: 1',
          }),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, { method: 'GET', path: '/headers' });
      expect(response.status).toBe(200);
      expect(response.headers['x-note']).toBe('aset-cookie: stolen=1');
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.headers['x-evil']).toBeUndefined();
      expect(response.headers['cache-control']).toBe('no-store');
    });
  });

  it('uses the status option, else the status the handler chose, and keeps headers set before', async () => {
    const routes = [
      route({ method: 'GET', url: '/option', handler: () => stream(chunks(['x']), { status: 206 }) }),
      route({
        method: 'POST',
        url: '/chosen',
        handler: ({ reply }) => {
          reply.status(202).header('x-before', 'kept');
          return stream(chunks(['x']));
        },
      }),
      route({ method: 'POST', url: '/default', successStatus: 201, handler: () => stream(chunks(['x'])) }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      expect((await call(`${url}/option`)).status).toBe(206);
      const chosen = await call(`${url}/chosen`, { method: 'POST' });
      expect(chosen.status).toBe(202);
      expect(chosen.headers.get('x-before')).toBe('kept');
      expect((await call(`${url}/default`, { method: 'POST' })).status).toBe(200);
    });
  });

  it('answers HEAD with the headers only and never reads the source', async () => {
    const state = { produced: 0, stopped: false };
    const routes = [
      route({
        method: 'GET',
        url: '/big',
        meta: { etag: true },
        handler: () => stream(endless(state), { contentType: 'text/plain', filename: 'a.txt' }),
      }),
    ];
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, { method: 'HEAD', path: '/big' });
      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expect(response.headers['content-type']).toBe('text/plain');
      expect(response.headers['content-disposition']).toBe('attachment; filename="a.txt"');
      // meta.etag is skipped for streamed bodies.
      expect(response.headers.etag).toBeUndefined();
      expect(state.produced).toBe(0);
    });
  });

  it('answers a source that fails before its first chunk with the error envelope', async () => {
    const reports: ErrorReport[] = [];
    const routes = [
      route({
        method: 'GET',
        url: '/missing',
        handler: () => stream(createReadStream('/nonexistent/file'), { filename: 'x.bin' }),
      }),
    ];
    await withServer(
      adapter,
      { routes, options: { onError: (report: ErrorReport) => reports.push(report) } },
      async (url) => {
        const response = await call(`${url}/missing`);
        expect(response.status).toBe(500);
        expect(response.json).toEqual({
          error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' },
        });
        expect(response.headers.get('content-disposition')).toBeNull();
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(reports).toHaveLength(1);
      },
    );
  });

  it('cuts the connection when the source fails mid-body and reports STREAM_FAILED once', async () => {
    const reports: ErrorReport[] = [];
    async function* failing() {
      yield Buffer.from('first part');
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('disk vanished');
    }
    const routes = [route({ method: 'GET', url: '/fails', handler: () => stream(failing()) })];
    await withServer(
      adapter,
      { routes, options: { onError: (report: ErrorReport) => reports.push(report) } },
      async (url) => {
        const response = await fetch(`${url}/fails`);
        expect(response.status).toBe(200);
        await expect(response.text()).rejects.toThrow();
        await until(() => reports.length > 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(reports).toHaveLength(1);
        expect(reports[0]).toMatchObject({ code: 'STREAM_FAILED', status: 500, route: '/fails' });
        // The server keeps serving.
        const again = await fetch(`${url}/fails`);
        expect(again.status).toBe(200);
        await again.body?.cancel();
      },
    );
  });

  it('applies backpressure: a client that stops reading stops the producer', async () => {
    const state = { produced: 0, stopped: false };
    const routes = [route({ method: 'GET', url: '/endless', handler: () => stream(endless(state)) })];
    await withServer(adapter, { routes }, async (url) => {
      const target = new URL(`${url}/endless`);
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          { host: target.hostname, port: target.port, path: target.pathname },
          (res) => {
            res.once('data', () => {
              res.pause();
              // Give the producer time to run ahead if it ignored backpressure.
              setTimeout(() => {
                try {
                  expect(state.produced).toBeLessThan(64 * 1024 * 1024);
                  req.destroy();
                  resolve();
                } catch (error) {
                  reject(error);
                }
              }, 300);
            });
          },
        );
        req.on('error', () => undefined);
        req.end();
      });
      // The client went away: the source is destroyed, so its cleanup runs.
      await until(() => state.stopped);
    });
  });
});
