// Our query-string / form parser (brief R §4): arrays for repeats, form decoding, never throws, no prototype.
import { describe, expect, it } from 'vitest';
import { parseFormEncoded } from 'svckit';

const plain = (value: object): unknown => JSON.parse(JSON.stringify(value));

describe('parseFormEncoded', () => {
  it('parses pairs into a null-prototype object', () => {
    const result = parseFormEncoded('a=1&b=two');
    expect(Object.getPrototypeOf(result)).toBeNull();
    expect(plain(result)).toEqual({ a: '1', b: 'two' });
  });

  it('turns repeated keys into an array in arrival order', () => {
    expect(plain(parseFormEncoded('a=1&a=2&b=x&a=3'))).toEqual({ a: ['1', '2', '3'], b: 'x' });
  });

  it('decodes + as space and percent escapes, in keys and values', () => {
    expect(plain(parseFormEncoded('full+name=Ada+Lovelace&q=caf%C3%A9&a%20b=%2B1'))).toEqual({
      'full name': 'Ada Lovelace',
      q: 'café',
      'a b': '+1',
    });
  });

  it('keeps the raw text when percent-encoding is malformed, without throwing', () => {
    expect(plain(parseFormEncoded('a=%E0%A4%A&b=%zz&c=100%'))).toEqual({
      a: '%E0%A4%A',
      b: '%zz',
      c: '100%',
    });
  });

  it('reads a key without "=" as an empty value and skips empty pairs', () => {
    expect(plain(parseFormEncoded('flag&&x=&=v'))).toEqual({ flag: '', x: '', '': 'v' });
  });

  it('answers an empty object for an empty string', () => {
    expect(Object.keys(parseFormEncoded(''))).toEqual([]);
  });

  it('keeps "=" inside values', () => {
    expect(plain(parseFormEncoded('token=a=b=c'))).toEqual({ token: 'a=b=c' });
  });

  it('drops __proto__ keys and pollutes nothing', () => {
    const result = parseFormEncoded('__proto__=x&__proto__[polluted]=1&%5F%5Fproto%5F%5F=y&constructor=z');
    expect(Object.keys(result)).toEqual(['__proto__[polluted]', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBeNull();
  });

  it('treats bracket keys literally', () => {
    expect(plain(parseFormEncoded('a[]=1&a[]=2'))).toEqual({ 'a[]': ['1', '2'] });
  });
});
