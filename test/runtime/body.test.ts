// Body parsing shared by the adapters: media types, empty bodies, malformed JSON, prototype poisoning.
import { describe, expect, it } from 'vitest';
import { bodyKindOf, parseBody, parseJsonBody } from 'svckit';

describe('bodyKindOf', () => {
  it.each([
    ['application/json', 'json'],
    ['Application/JSON; Charset=UTF-8', 'json'],
    ['  application/json  ;charset=utf-8', 'json'],
    ['application/problem+json', 'json'],
    ['application/VND.API+JSON; version=2', 'json'],
    ['application/x-www-form-urlencoded', 'form'],
    ['application/x-www-form-urlencoded; charset=utf-8', 'form'],
    ['text/plain; application/json', 'text'],
    ['text/plain', 'text'],
    ['application/jsonx', 'text'],
    ['application/json-patch', 'text'],
    ['application/+json', 'text'],
    ['json', 'text'],
    [undefined, 'text'],
  ])('%j is %s', (contentType, kind) => expect(bodyKindOf(contentType)).toBe(kind));
});

describe('parseJsonBody', () => {
  it('parses JSON', () => expect(parseJsonBody('{"a":[1,2]}')).toEqual({ a: [1, 2] }));

  it('reads an empty or blank body as no body', () => {
    expect(parseJsonBody('')).toBeUndefined();
    expect(parseJsonBody(' \r\n\t')).toBeUndefined();
  });

  it.each(['{', '{"a":}', "{'a':1}", 'undefined', '{"a":1} x', 'NaN'])(
    'refuses malformed %j with BAD_REQUEST',
    (text) => {
      expect(() => parseJsonBody(text)).toThrow(
        expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }),
      );
    },
  );

  it.each([
    '{"__proto__":{"admin":true}}',
    '{"a":{"b":[{"__proto__":{}}]}}',
    '{"\\u005f\\u005fproto__":{"x":1}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '[{"constructor":{"prototype":null}}]',
  ])('refuses prototype-poisoning keys in %s', (text) => {
    expect(() => parseJsonBody(text)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }));
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('accepts an ordinary "constructor" key', () => {
    expect(parseJsonBody('{"constructor":"Ada","proto":1}')).toEqual({ constructor: 'Ada', proto: 1 });
  });

  it('does not overflow the stack on deeply nested input', () => {
    const depth = 100_000;
    const text = `${'['.repeat(depth)}"constructor"${']'.repeat(depth)}`;
    let result: unknown;
    try {
      result = parseJsonBody(text);
    } catch (error) {
      result = error;
    }
    // Either parsed (and scanned without recursion) or refused as malformed: never a crash.
    expect(
      result === undefined || Array.isArray(result) || (result as { code?: string }).code === 'BAD_REQUEST',
    ).toBe(true);
  });
});

describe('parseBody', () => {
  it('parses form bodies into a null-prototype map with arrays for repeats', () => {
    const form = parseBody('a=1&a=2&b=x', 'application/x-www-form-urlencoded') as Record<string, unknown>;
    expect(Object.getPrototypeOf(form)).toBeNull();
    expect({ ...form }).toEqual({ a: ['1', '2'], b: 'x' });
  });

  it('reads any other type as text', () => {
    expect(parseBody('{"a":1}', 'text/plain; application/json')).toBe('{"a":1}');
    expect(parseBody('<x/>', 'application/xml')).toBe('<x/>');
    expect(parseBody('raw', undefined)).toBe('raw');
  });

  it('reads an empty body of any type as no body', () => {
    expect(parseBody('', 'text/plain')).toBeUndefined();
    expect(parseBody('', 'application/x-www-form-urlencoded')).toBeUndefined();
  });
});
