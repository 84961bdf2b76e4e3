// Errors raised before routing (node's parser, the router) answer the envelope with fixed codes.
import { describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { adapters, parseRawResponse, rawSocket, withServer } from './harness.js';

const routes = [route({ method: 'GET', url: '/items/:id', handler: ({ params }) => params })];

describe.each(adapters)('client errors on $name', (adapter) => {
  it('answers oversized headers with 431 HEADERS_TOO_LARGE', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const text = await rawSocket(
        url,
        `GET /items/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      const response = parseRawResponse(text);
      expect(response.status).toBe(431);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'HEADERS_TOO_LARGE', message: 'Request headers are too large.' },
      });
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  it('answers a malformed request with 400 BAD_REQUEST', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = parseRawResponse(await rawSocket(url, 'NOT A REQUEST\r\n\r\n'));
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'BAD_REQUEST', message: 'Malformed request body.' },
      });
    });
  });

  it('answers a malformed percent-encoded path with 400 and never echoes it', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = parseRawResponse(
        await rawSocket(url, 'GET /items/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error.code).toBe('BAD_REQUEST');
      expect(response.body).not.toContain('%E0');
      expect(response.headers['x-request-id']).toBeDefined();
    });
  });

  it('answers an invalid Content-Length with 400', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = parseRawResponse(
        await rawSocket(url, 'POST /items/1 HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
      );
      expect(response.status).toBe(400);
    });
  });
});
