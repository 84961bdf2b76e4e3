// Request context over HTTP: x-request-id rules and its echo on every response, correlation ids.
import { describe, expect, it } from 'vitest';
import { HttpError, route } from 'svckit';
import { adapters, call, rawRequest, withServer } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const routes = [
  route({
    method: 'GET',
    url: '/ids',
    handler: ({ context }) => ({ requestId: context.requestId, correlationId: context.correlationId }),
  }),
  route({
    method: 'POST',
    url: '/validated',
    body: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    handler: () => 'ok',
  }),
  route({
    method: 'GET',
    url: '/boom',
    handler: () => {
      throw new Error('kaboom');
    },
  }),
  route({
    method: 'GET',
    url: '/teapot',
    handler: () => {
      throw new HttpError(418, 'TEAPOT', 'I am a teapot.');
    },
  }),
  route({
    method: 'GET',
    url: '/self',
    handler: ({ reply }) => {
      reply.status(202).send('sent myself');
    },
  }),
];

describe.each(adapters)('request ids on $name', (adapter) => {
  it('uses an acceptable inbound x-request-id and echoes it', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/ids`, { headers: { 'x-request-id': 'trace.abc:1-2_3' } });
      expect(response.headers.get('x-request-id')).toBe('trace.abc:1-2_3');
      expect(response.json).toEqual({ requestId: 'trace.abc:1-2_3', correlationId: 'trace.abc:1-2_3' });
    });
  });

  it.each(['has space', 'x'.repeat(129), 'a/b', 'semi;colon', '<script>'])(
    'replaces %j with a UUID',
    async (inbound) => {
      await withServer(adapter, { routes }, async (url) => {
        const response = await rawRequest(url, {
          method: 'GET',
          path: '/ids',
          headers: { 'x-request-id': inbound },
        });
        const id = response.headers['x-request-id'];
        expect(id).toMatch(UUID);
        expect(JSON.parse(response.body)).toEqual({ requestId: id, correlationId: id });
      });
    },
  );

  it('generates a UUID when none is sent, different per request', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const first = await call(`${url}/ids`);
      const second = await call(`${url}/ids`);
      expect(first.headers.get('x-request-id')).toMatch(UUID);
      expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    });
  });

  it('takes an acceptable x-correlation-id, else the request id', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const withCorrelation = await call(`${url}/ids`, { headers: { 'x-correlation-id': 'flow-42' } });
      expect((withCorrelation.json as { correlationId: string }).correlationId).toBe('flow-42');
      const badCorrelation = await call(`${url}/ids`, {
        headers: { 'x-correlation-id': 'bad value', 'x-request-id': 'rid' },
      });
      expect(badCorrelation.json).toEqual({ requestId: 'rid', correlationId: 'rid' });
    });
  });

  it('echoes x-request-id on every kind of response', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const cases: [string, RequestInit | undefined, number][] = [
        ['/ids', undefined, 200],
        ['/missing', undefined, 404],
        ['/ids', { method: 'DELETE' }, 405],
        ['/validated', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, 400],
        ['/validated', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }, 400],
        ['/validated', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }, 415],
        [
          '/validated',
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(1_048_577) },
          413,
        ],
        ['/boom', undefined, 500],
        ['/teapot', undefined, 418],
        ['/self', undefined, 202],
      ];
      for (const [path, init, status] of cases) {
        const response = await call(`${url}${path}`, {
          ...init,
          headers: { ...init?.headers, 'x-request-id': 'echo-me' },
        });
        expect([path, response.status]).toEqual([path, status]);
        expect([path, response.headers.get('x-request-id')]).toEqual([path, 'echo-me']);
      }
    });
  });
});
