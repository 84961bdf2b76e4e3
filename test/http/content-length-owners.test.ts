// One reader of request bodies and one Content-Length parser (runtime/http/body-reader.ts,
// content-length.ts) serve every adapter and every body kind. The same framing sent to a JSON route, a raw
// route and an upload route on Fastify, Express and Hono gets one answer everywhere.
import { describe, expect, it } from 'vitest';
import { rawBody, route, upload, type RawBodyInput, type UploadInput } from 'svckit';
import { adapters, parseRawResponse, rawSocket, withServer } from './harness.js';

const routes = [
  route({ method: 'POST', url: '/json', handler: ({ body }) => ({ body: body ?? null }) }),
  route<{ body: RawBodyInput }>({
    method: 'POST',
    url: '/raw',
    body: rawBody({ maxBytes: 16 }),
    handler: ({ body }) => ({ length: body.bytes.length }),
  }),
  route<{ body: UploadInput }>({
    method: 'POST',
    url: '/upload',
    body: upload({ maxBytes: 1024, maxFiles: 1 }),
    handler: () => ({ ok: true }),
  }),
];

const CONTENT_TYPES: Record<string, string> = {
  '/json': 'application/json',
  '/raw': 'application/octet-stream',
  '/upload': 'multipart/form-data; boundary=x',
};

/** One request written on its own connection, asking the server to close it after answering. */
async function send(url: string, path: string, contentLength: string, body: string) {
  const head =
    `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
    `Content-Type: ${CONTENT_TYPES[path]}\r\nContent-Length: ${contentLength}\r\n\r\n`;
  return parseRawResponse(await rawSocket(url, head + body));
}

describe.each(adapters)('Content-Length on $name', (adapter) => {
  it('a declared length past the limit is refused with 413 before the body is read, for every body kind', async () => {
    await withServer(adapter, { routes }, async (url) => {
      for (const path of ['/json', '/raw', '/upload']) {
        // Sixteen digits: more than any limit, and past the integers a double holds exactly.
        const response = await send(url, path, '9999999999999999', 'short');
        expect({ path, status: response.status }).toEqual({ path, status: 413 });
        expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
      }
    });
  });

  it('leading zeros are the same length', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const json = await send(url, '/json', '0007', '{"a":1}');
      expect(json.status).toBe(200);
      expect(JSON.parse(json.body)).toEqual({ body: { a: 1 } });
      const raw = await send(url, '/raw', '0005', 'hello');
      expect(raw.status).toBe(200);
      expect(JSON.parse(raw.body)).toEqual({ length: 5 });
    });
  });
});
