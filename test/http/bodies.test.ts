// Body parsing on every adapter.
import { describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { adapters, call, rawRequest, withServer } from './harness.js';

const echo = ({ body, request }: { body: unknown; request: { bodyKind: unknown } }) => ({
  body: body === undefined ? '(none)' : body,
  kind: request.bodyKind ?? '(none)',
  prototype:
    body !== null && typeof body === 'object' && Object.getPrototypeOf(body) === null ? 'null' : 'object',
});

const routes = [
  route({
    method: 'POST',
    url: '/json',
    body: { type: 'object', properties: { a: { type: 'integer' } } },
    handler: echo,
  }),
  route({
    method: 'POST',
    url: '/optional',
    body: { type: 'object', properties: { a: { type: 'integer' } } },
    bodyRequired: false,
    handler: echo,
  }),
  route({ method: 'POST', url: '/any', handler: echo }),
  route({ method: 'PUT', url: '/any', handler: echo }),
  route({ method: 'DELETE', url: '/any', handler: echo }),
  route({ method: 'GET', url: '/any', handler: echo }),
  route({
    method: 'HEAD',
    url: '/head',
    // A HEAD answer has no body, so the route reports what it saw in a header.
    handler: ({ body, reply }) => {
      reply.header('x-seen-body', body === undefined ? '(none)' : JSON.stringify(body));
    },
  }),
];

const post = (url: string, contentType: string | undefined, body: string) =>
  rawRequest(url, {
    method: 'POST',
    path: '/json',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
  });

describe.each(adapters)('bodies on $name', (adapter) => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON; Charset=UTF-8',
    'application/merge-patch+json',
    'Application/Vnd.Api+JSON; version=1',
  ])('reads %s as JSON', async (contentType) => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await post(url, contentType, '{"a":1}');
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ body: { a: 1 }, kind: 'json', prototype: 'object' });
    });
  });

  it('answers malformed JSON with 400 BAD_REQUEST and the fixed message', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await post(url, 'application/json', '{"a":');
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'BAD_REQUEST', message: 'Malformed request body.' },
      });
    });
  });

  it.each(['{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"isAdmin":true}}}'])(
    'refuses prototype poisoning %s with 400',
    async (payload) => {
      await withServer(adapter, { routes }, async (url) => {
        const response = await rawRequest(url, {
          method: 'POST',
          path: '/any',
          headers: { 'content-type': 'application/json' },
          body: payload,
        });
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body).error.code).toBe('BAD_REQUEST');
        expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      });
    },
  );

  it('treats an empty JSON body as no body', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const optional = await rawRequest(url, {
        method: 'POST',
        path: '/optional',
        headers: { 'content-type': 'application/json', 'content-length': '0' },
      });
      expect(optional.status).toBe(200);
      expect(JSON.parse(optional.body)).toEqual({ body: '(none)', kind: '(none)', prototype: 'object' });
      const required = await post(url, 'application/json', '');
      expect(required.status).toBe(400);
      expect(JSON.parse(required.body).error).toMatchObject({ code: 'HTTP_VALIDATION', part: 'body' });
    });
  });

  it('validates an optional body when one is sent', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/optional`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":"x"}',
      });
      expect(response.status).toBe(400);
    });
  });

  it.each([
    ['text/plain; application/json', '{"a":1}'],
    ['text/plain', '{"a":1}'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/xml', '<a>1</a>'],
    [undefined, '{"a":1}'],
  ])('answers 415 for a %s body on a JSON route', async (contentType, payload) => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await post(url, contentType, payload);
      expect(response.status).toBe(415);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported media type.' },
      });
    });
  });

  it('reads form bodies into a null-prototype map with arrays for repeats', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, {
        method: 'POST',
        path: '/any',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=Ada+L&tag=a&tag=b&__proto__=x&bad=%zz',
      });
      expect(JSON.parse(response.body)).toEqual({
        body: { name: 'Ada L', tag: ['a', 'b'], bad: '%zz' },
        kind: 'form',
        prototype: 'null',
      });
    });
  });

  it('reads other types as text', async () => {
    await withServer(adapter, { routes }, async (url) => {
      for (const contentType of ['text/plain', 'text/csv; charset=utf-8', 'application/octet-stream']) {
        const response = await rawRequest(url, {
          method: 'PUT',
          path: '/any',
          headers: { 'content-type': contentType },
          body: 'a,b\n1,2',
        });
        expect(JSON.parse(response.body)).toEqual({ body: 'a,b\n1,2', kind: 'text', prototype: 'object' });
      }
    });
  });

  it('never reads a body on GET', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, {
        method: 'GET',
        path: '/any',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ body: '(none)', kind: '(none)', prototype: 'object' });
    });
  });

  it('never reads a body on HEAD', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, {
        method: 'HEAD',
        path: '/head',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(response.status).toBe(204);
      expect(response.headers['x-seen-body']).toBe('(none)');
      expect(response.body).toBe('');
    });
  });

  it('never reads a body on GET even when it is malformed JSON', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, {
        method: 'GET',
        path: '/any',
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      expect(response.status).toBe(200);
    });
  });

  it('reads bodies on DELETE', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, {
        method: 'DELETE',
        path: '/any',
        headers: { 'content-type': 'application/json' },
        body: '{"ids":[1]}',
      });
      expect(JSON.parse(response.body)).toEqual({ body: { ids: [1] }, kind: 'json', prototype: 'object' });
    });
  });

  it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const payload = JSON.stringify({ a: 'x'.repeat(1_048_576) });
      const response = await post(url, 'application/json', payload);
      expect(response.status).toBe(413);
      // The rest of the body is never read, so the connection is not kept alive.
      expect(response.headers.connection).toBe('close');
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
      });
    });
  });

  it('accepts a body just under the limit', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const filler = 'x'.repeat(1_048_576 - '{"b":""}'.length);
      const response = await rawRequest(url, {
        method: 'POST',
        path: '/any',
        headers: { 'content-type': 'application/json' },
        body: `{"b":"${filler}"}`,
      });
      expect(response.status).toBe(200);
    });
  });
});
