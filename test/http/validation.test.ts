// Validation over HTTP: the HTTP_VALIDATION envelope for each part, paths, order of parts, coercion.
import { describe, expect, it } from 'vitest';
import { MAX_VALIDATION_ISSUES, route } from 'svckit';
import { adapters, call, withServer } from './harness.js';

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const routes = [
  route({
    method: 'POST',
    url: '/orders/:orderId',
    params: {
      type: 'object',
      properties: { orderId: { type: 'integer', minimum: 1 } },
      required: ['orderId'],
    },
    query: {
      type: 'object',
      properties: {
        limit: { type: 'integer', maximum: 50 },
        ratio: { type: 'number' },
        dryRun: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        ids: { type: 'array', items: { type: 'integer' } },
      },
      additionalProperties: false,
    },
    body: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, qty: { type: 'integer' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
        role: { enum: ['user', 'admin'] },
      },
      required: ['title'],
      additionalProperties: false,
    },
    handler: ({ params, query, body }) => ({ params, query, body }),
  }),
  route({
    method: 'GET',
    url: '/many',
    query: {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`q${i}`, { type: 'integer' }])),
    },
    handler: () => 'ok',
  }),
];

type Envelope = {
  error: { code: string; message: string; part: string; issues: { path: string; message: string }[] };
};

describe.each(adapters)('validation on $name', (adapter) => {
  it('coerces params and query by their schema and passes them to the handler', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(
        `${url}/orders/7?limit=10&ratio=0.5&dryRun=true&tags=a&ids=1&ids=2`,
        json({ title: 't', items: [{ name: 'n', qty: 2 }] }),
      );
      expect(response.status).toBe(200);
      expect(response.json).toEqual({
        params: { orderId: 7 },
        query: { limit: 10, ratio: 0.5, dryRun: true, tags: ['a'], ids: [1, 2] },
        body: { title: 't', items: [{ name: 'n', qty: 2 }] },
      });
    });
  });

  it('answers a params failure with part params', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/orders/0x10`, json({ title: 't' }));
      expect(response.status).toBe(400);
      expect(response.json).toEqual({
        error: {
          code: 'HTTP_VALIDATION',
          message: 'Request validation failed.',
          part: 'params',
          issues: [{ path: 'orderId', message: 'must be integer' }],
        },
      });
    });
  });

  it.each([
    ['limit=%205%20', 'limit', 'must be integer'],
    ['limit=1e3', 'limit', 'must be integer'],
    ['limit=', 'limit', 'must be integer'],
    ['limit=51', 'limit', 'must be <= 50'],
    ['limit=1&limit=2', 'limit', 'must be integer'],
    ['ratio=Infinity', 'ratio', 'must be number'],
    ['dryRun=1', 'dryRun', 'must be boolean'],
    ['ids=1&ids=x', 'ids.1', 'must be integer'],
    ['extra=1', 'extra', 'is not allowed'],
  ])('answers query %s with a query issue at %s', async (query, path, message) => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/orders/1?${query}`, json({ title: 't' }));
      expect(response.status).toBe(400);
      const body = response.json as Envelope;
      expect(body.error.part).toBe('query');
      expect(body.error.issues).toContainEqual({ path, message });
    });
  });

  it('reports nested body paths, required and additional properties', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(
        `${url}/orders/1`,
        json({ items: [{ name: 'a' }, { qty: 'x', color: 'red' }] }),
      );
      expect(response.status).toBe(400);
      const body = response.json as Envelope;
      expect(body.error.part).toBe('body');
      expect(body.error.issues).toEqual(
        expect.arrayContaining([
          { path: 'title', message: 'is required' },
          { path: 'items.1.name', message: 'is required' },
          { path: 'items.1.color', message: 'is not allowed' },
          { path: 'items.1.qty', message: 'must be integer' },
        ]),
      );
    });
  });

  it('never carries details and never echoes the rejected value', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/orders/1`, json({ title: 't', role: 'sup3r-secret-value' }));
      expect(response.status).toBe(400);
      expect(Object.keys((response.json as Envelope).error).sort()).toEqual([
        'code',
        'issues',
        'message',
        'part',
      ]);
      expect(response.text).not.toContain('sup3r-secret-value');
    });
  });

  it('checks params, then query, then body', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const all = await call(`${url}/orders/x?limit=x`, json({}));
      expect((all.json as Envelope).error.part).toBe('params');
      const queryAndBody = await call(`${url}/orders/1?limit=x`, json({}));
      expect((queryAndBody.json as Envelope).error.part).toBe('query');
    });
  });

  it('answers a missing JSON body on a route with a body schema as a body issue', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/orders/1`, { method: 'POST' });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({
        error: { part: 'body', issues: [{ path: '', message: 'is required' }] },
      });
    });
  });

  it(`caps issues at ${MAX_VALIDATION_ISSUES}`, async () => {
    await withServer(adapter, { routes }, async (url) => {
      const query = Array.from({ length: 40 }, (_, i) => `q${i}=x`).join('&');
      const response = await call(`${url}/many?${query}`);
      expect((response.json as Envelope).error.issues).toHaveLength(MAX_VALIDATION_ISSUES);
    });
  });
});
