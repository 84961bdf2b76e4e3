// createPipeline in process: the order of steps, guards without a container, execute vs handle, contexts.
import { describe, expect, it } from 'vitest';
import { createPipeline, HttpError, route, Scope, type ErrorReport, type PipelineInput } from 'svckit';
import { FakeReply, fakeRequest } from './fake-io.js';

describe('createPipeline', () => {
  it('runs enrichers, then guards, then validation, then the handler', async () => {
    const order: string[] = [];
    const pipeline = createPipeline({
      container: new Scope(),
      enrichers: [
        {
          name: 'user',
          enrich: async ({ context }: PipelineInput) => {
            order.push('enrich');
            context.user = { id: 'u1' };
          },
        },
      ],
      guards: [
        {
          name: 'auth',
          check: ({ context }: PipelineInput) => {
            order.push(`guard sees ${(context.user as { id: string }).id}`);
          },
        },
      ],
    });
    const compiled = pipeline.compile(
      route({
        method: 'GET',
        url: '/a',
        query: {
          type: 'object',
          properties: {
            n: {
              type: 'integer',
            },
          },
        },
        handler: ({ query }) => {
          order.push('handler');
          return query;
        },
      }),
    );
    const reply = new FakeReply();
    const context = pipeline.createContext({});
    await compiled.handle(fakeRequest({ query: { n: '3' }, context }), reply);
    expect(order).toEqual(['enrich', 'guard sees u1', 'handler']);
    expect(reply.json()).toEqual({ n: 3 });
    expect(reply.headers['x-request-id']).toBe(context.requestId);
  });

  it('answers a guard rejection before validating (a guard wins over invalid input)', async () => {
    const pipeline = createPipeline({
      container: new Scope(),
      guards: [
        {
          name: 'deny',
          check: () => {
            throw new HttpError(401, 'AUTH_REQUIRED', 'Authentication required.');
          },
        },
      ],
    });
    const compiled = pipeline.compile(
      route({ method: 'POST', url: '/a', body: { type: 'object', required: [] }, handler: () => 1 }),
    );
    const reply = new FakeReply();
    await compiled.handle(
      fakeRequest({ method: 'POST', body: 'not an object', context: pipeline.createContext({}) }),
      reply,
    );
    expect(reply.statusCode).toBe(401);
    expect(reply.json()).toEqual({ error: { code: 'AUTH_REQUIRED', message: 'Authentication required.' } });
  });

  it('answers 500 HTTP_GUARDS_UNRUNNABLE when guards exist but no container does', async () => {
    let handlerRan = false;
    let guardRan = false;
    const reports: ErrorReport[] = [];
    const pipeline = createPipeline({
      guards: [{ name: 'g', check: () => void (guardRan = true) }],
      onError: (report) => reports.push(report),
    });
    const compiled = pipeline.compile(
      route({ method: 'GET', url: '/a', handler: () => void (handlerRan = true) }),
    );
    const reply = new FakeReply();
    await compiled.handle(fakeRequest({ context: pipeline.createContext({}) }), reply);
    expect(reply.statusCode).toBe(500);
    expect(reply.json()).toEqual({
      error: { code: 'HTTP_GUARDS_UNRUNNABLE', message: 'Internal server error.' },
    });
    expect(handlerRan).toBe(false);
    expect(guardRan).toBe(false);
    expect(reports[0]?.code).toBe('HTTP_GUARDS_UNRUNNABLE');
  });

  it('leaves a guard out of the routes its appliesTo() turns down, asking once per route at boot', async () => {
    const checked: string[] = [];
    const asked: string[] = [];
    const pipeline = createPipeline({
      container: new Scope(),
      guards: [
        {
          name: 'only-limited',
          appliesTo: (candidate) => {
            asked.push(candidate.url);
            return candidate.meta.limited === true;
          },
          check: ({ route: guarded }) => void checked.push(guarded.url),
        },
        { name: 'everywhere', check: ({ route: guarded }) => void checked.push(`all ${guarded.url}`) },
      ],
    });
    const limited = pipeline.compile(
      route({ method: 'GET', url: '/limited', meta: { limited: true }, handler: () => 'a' }),
    );
    const open = pipeline.compile(route({ method: 'GET', url: '/open', handler: () => 'b' }));
    for (const compiled of [limited, open, limited, open]) {
      await compiled.handle(fakeRequest({ context: pipeline.createContext({}) }), new FakeReply());
    }
    expect(checked).toEqual([
      '/limited',
      'all /limited',
      'all /open',
      '/limited',
      'all /limited',
      'all /open',
    ]);
    expect(asked).toEqual(['/limited', '/open']);
  });

  it('needs no container when no guard applies to the route', async () => {
    const pipeline = createPipeline({ guards: [{ name: 'g', appliesTo: () => false, check: () => {} }] });
    const compiled = pipeline.compile(route({ method: 'GET', url: '/a', handler: () => 'ok' }));
    const reply = new FakeReply();
    await compiled.handle(fakeRequest({ context: pipeline.createContext({}) }), reply);
    expect(reply.body).toBe('ok');
  });

  it('runs routes without guards when there is no container', async () => {
    const pipeline = createPipeline({});
    const compiled = pipeline.compile(route({ method: 'GET', url: '/a', handler: () => 'ok' }));
    const reply = new FakeReply();
    await compiled.handle(fakeRequest({ context: pipeline.createContext({}) }), reply);
    expect(reply.body).toBe('ok');
  });

  it('execute() rejects with the thrown error instead of answering it (for in-process callers)', async () => {
    const pipeline = createPipeline({ onError: false });
    const failure = new HttpError(409, 'TAKEN', 'Taken.');
    const compiled = pipeline.compile(
      route({
        method: 'GET',
        url: '/a',
        handler: async () => {
          throw failure;
        },
      }),
    );
    const reply = new FakeReply();
    await expect(compiled.execute(fakeRequest({ context: pipeline.createContext({}) }), reply)).rejects.toBe(
      failure,
    );
    expect(reply.sent).toBe(false);
  });

  it('answers synchronously when the route has no async step', () => {
    const pipeline = createPipeline({});
    const compiled = pipeline.compile(route({ method: 'GET', url: '/a', handler: () => ({ a: 1 }) }));
    const reply = new FakeReply();
    const result = compiled.handle(fakeRequest({ context: pipeline.createContext({}) }), reply);
    expect(result).toBeUndefined();
    expect(reply.sent).toBe(true);
  });

  it('gives each request a child scope of the container, created on first use', () => {
    const root = new Scope().provide('config', 'root-value');
    const pipeline = createPipeline({ container: root });
    const first = pipeline.createContext({});
    const second = pipeline.createContext({});
    expect(first.container).toBeInstanceOf(Scope);
    expect(first.container).toBe(first.container);
    expect(first.container).not.toBe(second.container);
    expect(first.container?.get('config')).toBe('root-value');
    first.container?.provide('user', 'alice');
    expect(second.container?.get('user')).toBeUndefined();
    expect(root.get('user')).toBeUndefined();
  });

  it('takes the ids from the headers by the x-request-id rule', () => {
    const pipeline = createPipeline({});
    const context = pipeline.createContext({ 'x-request-id': 'abc', 'x-correlation-id': 'corr' });
    expect([context.requestId, context.correlationId]).toEqual(['abc', 'corr']);
    expect(pipeline.createContext({}, 'given').requestId).toBe('given');
  });

  it('reports 5xx with internalDetails and does not report 4xx', async () => {
    const reports: ErrorReport[] = [];
    const pipeline = createPipeline({ onError: (report) => reports.push(report) });
    const failing = pipeline.compile(
      route({
        method: 'GET',
        url: '/boom',
        handler: () => {
          throw new HttpError(503, 'DOWN', 'Down.', { internalDetails: { host: 'db-1' } });
        },
      }),
    );
    const missing = pipeline.compile(
      route({
        method: 'GET',
        url: '/missing',
        handler: () => {
          throw new HttpError(404, 'GONE', 'Gone.');
        },
      }),
    );
    const context = pipeline.createContext({ 'x-request-id': 'rid' });
    await failing.handle(fakeRequest({ context }), new FakeReply());
    await missing.handle(fakeRequest({ context }), new FakeReply());
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      code: 'DOWN',
      status: 503,
      requestId: 'rid',
      method: 'GET',
      route: '/boom',
      internalDetails: { host: 'db-1' },
    });
  });

  it('a throwing reporter does not change the response', async () => {
    const pipeline = createPipeline({
      onError: () => {
        throw new Error('reporter down');
      },
    });
    const compiled = pipeline.compile(
      route({
        method: 'GET',
        url: '/a',
        handler: () => {
          throw new Error('x');
        },
      }),
    );
    const reply = new FakeReply();
    await compiled.handle(fakeRequest({ context: pipeline.createContext({}) }), reply);
    expect(reply.statusCode).toBe(500);
  });
});
