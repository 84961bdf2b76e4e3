// route() and bindRoutes(): the contract the generated routes.ts relies on, and clear definition errors.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { bindRoutes, route, type RouteDefinition } from 'svckit';

const validate = Object.assign(() => true, { errors: null });

describe('route()', () => {
  it('builds a neutral route with compiled validators and coercion plans', () => {
    const built = route({
      method: 'get',
      url: '/notes/:id',
      params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      query: { type: 'object', properties: { tags: { type: 'array', items: { type: 'boolean' } } } },
      body: { type: 'object' },
      meta: { summary: 'Read' },
      handler: () => null,
    });
    expect(built.method).toBe('GET');
    expect(built.params?.coerce).toEqual({ id: 'integer' });
    expect(built.query?.coerce).toEqual({ tags: { items: 'boolean' } });
    expect(built.params?.validate({ id: 1 })).toBe(true);
    expect(built.params?.validate({ id: '1' })).toBe(false);
    expect(built.body?.kind).toBe('json');
    expect(built.meta).toEqual({ summary: 'Read' });
  });

  it('infers handler input types from the type argument', () => {
    route<{ params: { id: number }; body: { title: string } }>({
      method: 'POST',
      url: '/notes/:id',
      handler: ({ params, body, query }) => {
        expectTypeOf(params.id).toEqualTypeOf<number>();
        expectTypeOf(body.title).toEqualTypeOf<string>();
        expectTypeOf(query).toEqualTypeOf<Record<string, string | string[]>>();
        return undefined;
      },
    });
    route({
      method: 'GET',
      url: '/x/:id',
      handler: ({ params, body }) => {
        expectTypeOf(params).toEqualTypeOf<Record<string, string>>();
        expectTypeOf(body).toEqualTypeOf<unknown>();
        return undefined;
      },
    });
  });

  it('uses the lowest declared 2xx response as the success status, else 200', () => {
    expect(
      route({ method: 'POST', url: '/a', response: { 201: {}, 400: {} }, handler: () => 1 }).successStatus,
    ).toBe(201);
    expect(
      route({ method: 'POST', url: '/a', response: { 202: {}, 201: {} }, handler: () => 1 }).successStatus,
    ).toBe(201);
    expect(route({ method: 'POST', url: '/a', handler: () => 1 }).successStatus).toBe(200);
    expect(route({ method: 'POST', url: '/a', successStatus: 202, handler: () => 1 }).successStatus).toBe(
      202,
    );
  });

  const one = (): number => 1;
  it.each<[Record<string, unknown>, RegExp]>([
    [{ method: 'FETCH', url: '/a', handler: one }, /method must be one of/],
    [{ method: 'GET', url: 'a', handler: one }, /url must be a string starting with "\/"/],
    [{ method: 'GET', url: '/a' }, /handler must be a function/],
    [{ method: 'GET', url: '/a', successStatus: 301, handler: one }, /successStatus must be a 2xx status/],
    [
      { method: 'GET', url: '/a', body: { type: 'object', unknownKeyword: 1 }, handler: one },
      /body schema cannot be compiled/,
    ],
  ])('refuses an invalid definition with HTTP_ROUTE_INVALID', (definition, message) => {
    expect(() => route(definition as never)).toThrow(expect.objectContaining({ code: 'HTTP_ROUTE_INVALID' }));
    expect(() => route(definition as never)).toThrow(message);
  });
});

describe('bindRoutes()', () => {
  const definitions: RouteDefinition[] = [
    { id: 'getNote', method: 'GET', url: '/notes/:id', meta: {}, params: { validate } },
    { id: 'listNotes', method: 'GET', url: '/notes', meta: { etag: true } },
  ];

  it('pairs each definition with the handler of the same id, keeping everything else', () => {
    const getNote = () => 'one';
    const listNotes = () => 'all';
    const routes = bindRoutes(definitions, { getNote, listNotes });
    expect(routes.map((r) => [r.id, r.url, r.meta])).toEqual([
      ['getNote', '/notes/:id', {}],
      ['listNotes', '/notes', { etag: true }],
    ]);
    expect((routes[0]?.handler as unknown as () => string)()).toBe('one');
    expect(routes[0]?.params?.validate).toBe(validate);
  });

  it('calls handlers with the handlers object as this (class instances work)', () => {
    class NotesHandlers {
      prefix = 'note:';
      getNote() {
        return `${this.prefix}1`;
      }
      listNotes() {
        return [];
      }
    }
    const routes = bindRoutes(definitions, new NotesHandlers());
    expect((routes[0]?.handler as unknown as () => string)()).toBe('note:1');
  });

  it('throws at once naming the route id when a handler is missing', () => {
    expect(() => bindRoutes(definitions, { getNote: () => 1 })).toThrow(/listNotes/);
    expect(() => bindRoutes(definitions, { getNote: () => 1 })).toThrow(
      expect.objectContaining({ code: 'HTTP_ROUTE_INVALID' }),
    );
  });

  it('throws when a handler is not a function', () => {
    expect(() => bindRoutes(definitions, { getNote: () => 1, listNotes: 'nope' })).toThrow(
      /handlers.listNotes/,
    );
  });

  it('does not take functions inherited from Object.prototype as handlers', () => {
    const odd: RouteDefinition[] = [{ id: 'toString', method: 'GET', url: '/s', meta: {} }];
    expect(() => bindRoutes(odd, {})).toThrow(/toString/);
  });

  it('refuses a handlers value that is not an object', () => {
    expect(() => bindRoutes(definitions, null as unknown as object)).toThrow(/handlers must be an object/);
  });
});
