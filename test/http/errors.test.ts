// The error envelope over HTTP: details rules, five-hundred handling and the onError reporter.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError, SvcError, route, type ErrorReport } from 'svckit';
import { errors } from '../../generated/modules/errors.js';
import { adapters, call, withServer } from './harness.js';

const thrower = (url: string, error: () => unknown) =>
  route({
    method: 'GET',
    url,
    handler: () => {
      throw error();
    },
  });

const cyclic = (): Record<string, unknown> => {
  const node: Record<string, unknown> = { name: 'root' };
  node.self = node;
  return node;
};

const routes = [
  thrower('/unexpected', () => new Error('password=hunter2 at db-7.internal')),
  thrower('/thrown-string', () => 'raw string with secret'),
  thrower(
    '/toolkit-500',
    () => new HttpError(500, 'LEDGER_BROKEN', 'Ledger shard 3 corrupt', { details: { shard: 3 } }),
  ),
  thrower('/exposed-500', () => new HttpError(500, 'MAINTENANCE', 'Back at noon.', { expose: true })),
  thrower(
    '/hidden-404',
    () => new HttpError(404, 'USER_NOT_FOUND', 'No user bob@example.com', { expose: false }),
  ),
  thrower('/unavailable', () => new HttpError(503, 'UPSTREAM_DOWN', 'Payments provider is down.')),
  thrower('/not-implemented', () => new SvcError(501, 'NOT_YET', 'Not yet.')),
  thrower('/external-status', () =>
    Object.assign(new Error('upstream said 403'), { status: 403, statusCode: 403 }),
  ),
  thrower('/exposed-external', () =>
    Object.assign(new Error('Widget is locked.'), { status: 423, expose: true }),
  ),
  thrower('/catalog', () => errors.RATE_LIMITED({ details: { retryInMs: 1000 } })),
  thrower(
    '/details',
    () =>
      new HttpError(409, 'CONFLICT_X', 'Conflict.', {
        details: {
          at: new Date('2026-01-01T00:00:00.000Z'),
          fn: () => 1,
          big: 10n,
          nan: Number.NaN,
          list: [1, undefined, Symbol('s')],
          map: new Map(),
          nested: cyclic(),
          token: 'visible-without-redactor',
        },
        internalDetails: { query: 'SELECT * FROM secrets' },
      }),
  ),
  thrower(
    '/huge-details',
    () => new HttpError(400, 'HUGE', 'Huge.', { details: { blob: 'x'.repeat(5000) } }),
  ),
  thrower('/no-details', () => new HttpError(400, 'PLAIN', 'Plain.')),
  route({
    method: 'GET',
    url: '/async-unexpected',
    handler: async () => {
      await Promise.resolve();
      throw new TypeError("Cannot read properties of undefined (reading 'secretField')");
    },
  }),
  route({ method: 'GET', url: '/bigint', handler: () => ({ n: 1n }) }),
];

const NEUTRAL = 'Internal server error.';

describe.each(adapters)('errors on $name', (adapter) => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    ['/unexpected', 500, { code: 'INTERNAL_ERROR', message: NEUTRAL }],
    ['/thrown-string', 500, { code: 'INTERNAL_ERROR', message: NEUTRAL }],
    ['/async-unexpected', 500, { code: 'INTERNAL_ERROR', message: NEUTRAL }],
    ['/bigint', 500, { code: 'INTERNAL_ERROR', message: NEUTRAL }],
    ['/toolkit-500', 500, { code: 'LEDGER_BROKEN', message: NEUTRAL, details: { shard: 3 } }],
    ['/exposed-500', 500, { code: 'MAINTENANCE', message: 'Back at noon.' }],
    ['/hidden-404', 404, { code: 'USER_NOT_FOUND', message: 'Not found.' }],
    ['/unavailable', 503, { code: 'UPSTREAM_DOWN', message: 'Payments provider is down.' }],
    ['/not-implemented', 501, { code: 'NOT_YET', message: 'Not yet.' }],
    ['/external-status', 500, { code: 'INTERNAL_ERROR', message: NEUTRAL }],
    ['/exposed-external', 423, { code: 'BAD_REQUEST', message: 'Widget is locked.' }],
    ['/catalog', 429, { code: 'RATE_LIMITED', message: 'Too many requests.', details: { retryInMs: 1000 } }],
    ['/huge-details', 400, { code: 'HUGE', message: 'Huge.' }],
    ['/no-details', 400, { code: 'PLAIN', message: 'Plain.' }],
  ])('%s answers %i with exactly the expected envelope', async (path, status, error) => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}${path}`);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.json).toEqual({ error });
    });
  });

  it('never leaks the message of an unexpected error', async () => {
    await withServer(adapter, { routes }, async (url) => {
      for (const path of ['/unexpected', '/thrown-string', '/async-unexpected', '/toolkit-500']) {
        const response = await call(`${url}${path}`);
        expect(response.text).not.toMatch(/hunter2|db-7|secretField|raw string|shard 3/);
      }
    });
  });

  it('sanitises details by the data-kinds rules and never sends internalDetails', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/details`);
      expect(response.status).toBe(409);
      expect(response.json).toEqual({
        error: {
          code: 'CONFLICT_X',
          message: 'Conflict.',
          details: {
            at: '2026-01-01T00:00:00.000Z',
            list: [1, null, null],
            nested: { name: 'root' },
            token: 'visible-without-redactor',
          },
        },
      });
      expect(response.text).not.toContain('SELECT');
    });
  });

  it('reports every 5xx to onError with internalDetails, and no 4xx', async () => {
    const reports: ErrorReport[] = [];
    await withServer(
      adapter,
      {
        routes: [
          ...routes,
          thrower('/internal', () => new HttpError(500, 'DB', 'db', { internalDetails: { host: 'db-7' } })),
        ],
        options: { onError: (report: ErrorReport) => reports.push(report) },
      },
      async (url) => {
        await call(`${url}/internal`, { headers: { 'x-request-id': 'rep-1' } });
        await call(`${url}/unexpected`);
        await call(`${url}/unavailable`);
        await call(`${url}/no-details`);
        await call(`${url}/hidden-404`);
      },
    );
    expect(reports.map((r) => [r.code, r.status])).toEqual([
      ['DB', 500],
      ['INTERNAL_ERROR', 500],
      ['UPSTREAM_DOWN', 503],
    ]);
    expect(reports[0]).toMatchObject({
      requestId: 'rep-1',
      method: 'GET',
      route: '/internal',
      internalDetails: { host: 'db-7' },
    });
    expect((reports[1]?.error as Error).message).toContain('hunter2');
  });

  it('writes one JSON line to stderr by default', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    await withServer(adapter, { routes, options: { onError: undefined } }, async (url) => {
      await call(`${url}/toolkit-500`, { headers: { 'x-request-id': 'line-1' } });
    });
    vi.restoreAllMocks();
    const line = lines.find((text) => text.includes('line-1'));
    expect(line?.endsWith('\n')).toBe(true);
    expect(line?.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      code: 'LEDGER_BROKEN',
      status: 500,
      requestId: 'line-1',
    });
  });

  it('onError: false silences reporting', async () => {
    const write = vi.spyOn(process.stderr, 'write');
    await withServer(adapter, { routes, options: { onError: false } }, async (url) => {
      await call(`${url}/unexpected`);
    });
    expect(write).not.toHaveBeenCalled();
  });

  it('a throwing onError never changes the response', async () => {
    await withServer(
      adapter,
      {
        routes,
        options: {
          onError: () => {
            throw new Error('reporter down');
          },
        },
      },
      async (url) => {
        const response = await call(`${url}/unexpected`);
        expect(response.status).toBe(500);
        expect(response.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: NEUTRAL } });
      },
    );
  });
});
