// Public error details (docs/http.md, "Details"): each data kind, cycles, depth, size and __proto__.
import { describe, expect, it } from 'vitest';
import { MAX_ERROR_DETAILS_BYTES, MAX_ERROR_DETAILS_DEPTH, sanitizeDetails } from 'svckit';
import { detailsFit } from '../../runtime/http/details.js';

function nested(levels: number): Record<string, unknown> {
  // `levels` objects inside each other, the innermost holding a string.
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 1; i < levels; i++) value = { next: value };
  return value;
}

function countLevels(value: unknown): number {
  let levels = 0;
  let current = value as Record<string, unknown> | undefined;
  while (current !== undefined && typeof current === 'object') {
    levels++;
    current = current.next as Record<string, unknown> | undefined;
  }
  return levels;
}

describe('sanitizeDetails data kinds', () => {
  it('keeps strings, finite numbers, booleans, null, arrays and plain objects', () => {
    const input = { s: 'a', n: 1.5, z: 0, t: true, f: false, nil: null, list: [1, 'b'], obj: { k: 'v' } };
    expect(sanitizeDetails(input)).toEqual(input);
  });

  it('keeps null-prototype objects as plain data', () => {
    const input = Object.assign(Object.create(null) as object, { a: 1 });
    expect(sanitizeDetails({ input })).toEqual({ input: { a: 1 } });
  });

  it('turns a Date into its ISO string and strips an invalid Date', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(sanitizeDetails({ at, bad: new Date(Number.NaN) })).toEqual({ at: '2026-01-02T03:04:05.000Z' });
  });

  it.each([
    ['function', () => 1],
    ['symbol', Symbol('s')],
    ['undefined', undefined],
    ['BigInt', 10n],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['Error', new Error('secret')],
    ['Map', new Map([['a', 1]])],
    ['Set', new Set([1])],
    ['RegExp', /x/],
    ['typed array', new Uint8Array([1, 2])],
    ['Buffer', Buffer.from('secret')],
    [
      'class instance',
      new (class Point {
        x = 1;
      })(),
    ],
    ['boxed string', new String('x')],
    ['Promise', Promise.resolve(1)],
  ])('strips a %s from objects and turns it into null in arrays', (_kind, value) => {
    expect(sanitizeDetails({ keep: 1, drop: value })).toEqual({ keep: 1 });
    expect(sanitizeDetails({ list: [1, value, 2] })).toEqual({ list: [1, null, 2] });
  });

  it('drops a top-level value that is not data', () => {
    expect(sanitizeDetails(new Map())).toBeUndefined();
    expect(sanitizeDetails(() => 1)).toBeUndefined();
    expect(sanitizeDetails(undefined)).toBeUndefined();
  });

  it('sends only a plain object at the top: the envelope types details as an object', () => {
    for (const top of ['text', 3, true, null, [1, 2], new Date(0)])
      expect(sanitizeDetails(top)).toBeUndefined();
    expect(sanitizeDetails({ field: 'title' })).toEqual({ field: 'title' });
  });

  it('turns array holes into null', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(sanitizeDetails({ list: [1, , 3] })).toEqual({ list: [1, null, 3] });
  });

  it('never copies a __proto__ key, and the copy has Object.prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as object;
    const result = sanitizeDetails(input) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(['ok']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not invoke getters (accessors are not data)', () => {
    let called = false;
    const input = {
      plain: 1,
      get computed() {
        called = true;
        throw new Error('boom');
      },
    };
    expect(sanitizeDetails(input)).toEqual({ plain: 1 });
    expect(called).toBe(false);
  });

  it('ignores symbol keys and non-enumerable properties', () => {
    const input: Record<string | symbol, unknown> = { a: 1, [Symbol('s')]: 2 };
    Object.defineProperty(input, 'hidden', { value: 3, enumerable: false });
    expect(sanitizeDetails(input)).toEqual({ a: 1 });
  });

  it('drops the whole payload when a proxy trap throws', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(sanitizeDetails({ hostile })).toBeUndefined();
  });
});

describe('sanitizeDetails shape', () => {
  it('drops a cycle where it closes', () => {
    const a: Record<string, unknown> = { name: 'a' };
    const b: Record<string, unknown> = { name: 'b', back: a };
    a.child = b;
    expect(sanitizeDetails(a)).toEqual({ name: 'a', child: { name: 'b' } });
  });

  it('turns a cyclic array element into null', () => {
    const list: unknown[] = [1];
    list.push(list);
    expect(sanitizeDetails({ list })).toEqual({ list: [1, null] });
  });

  it('keeps a shared reference that is not a cycle', () => {
    const shared = { id: 7 };
    expect(sanitizeDetails({ first: shared, second: shared, list: [shared] })).toEqual({
      first: { id: 7 },
      second: { id: 7 },
      list: [{ id: 7 }],
    });
  });

  it(`keeps ${MAX_ERROR_DETAILS_DEPTH} levels of nesting`, () => {
    const result = sanitizeDetails(nested(MAX_ERROR_DETAILS_DEPTH));
    expect(countLevels(result)).toBe(MAX_ERROR_DETAILS_DEPTH);
    expect(JSON.stringify(result)).toContain('"leaf":"x"');
  });

  it(`drops the level past ${MAX_ERROR_DETAILS_DEPTH}`, () => {
    const result = sanitizeDetails(nested(MAX_ERROR_DETAILS_DEPTH + 1));
    expect(countLevels(result)).toBe(MAX_ERROR_DETAILS_DEPTH);
    expect(JSON.stringify(result)).not.toContain('leaf');
  });

  it('counts arrays as levels too', () => {
    // The details object is level 1; arrays nested inside it count from level 2.
    const arrays = (levels: number): unknown => {
      let value: unknown = ['deep'];
      for (let i = 1; i < levels; i++) value = [value];
      return { list: value };
    };
    expect(JSON.stringify(sanitizeDetails(arrays(MAX_ERROR_DETAILS_DEPTH - 1)))).toContain('deep');
    expect(JSON.stringify(sanitizeDetails(arrays(MAX_ERROR_DETAILS_DEPTH)))).not.toContain('deep');
  });
});

describe('details size', () => {
  const overhead = JSON.stringify({ s: '' }).length;

  it(`keeps a payload of exactly ${MAX_ERROR_DETAILS_BYTES} bytes`, () => {
    const value = { s: 'a'.repeat(MAX_ERROR_DETAILS_BYTES - overhead) };
    expect(JSON.stringify(value).length).toBe(MAX_ERROR_DETAILS_BYTES);
    expect(detailsFit(value)).toBe(true);
  });

  it('refuses one byte more, counting UTF-8 bytes', () => {
    expect(detailsFit({ s: 'a'.repeat(MAX_ERROR_DETAILS_BYTES - overhead + 1) })).toBe(false);
    // 'é' is 2 bytes: half as many characters already reach the limit.
    expect(detailsFit({ s: 'é'.repeat((MAX_ERROR_DETAILS_BYTES - overhead) / 2 + 1) })).toBe(false);
  });

  it('stops walking huge shared graphs instead of copying them', () => {
    const leaf = { v: 1 };
    const wide = Array.from({ length: 1000 }, () => leaf);
    const graph = Array.from({ length: 1000 }, () => wide);
    expect(sanitizeDetails(graph)).toBeUndefined();
  });
});
