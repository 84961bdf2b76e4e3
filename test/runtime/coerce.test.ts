// Strict coercion of query and path text (brief R §4): what does not parse exactly stays text.
import { describe, expect, it } from 'vitest';
import { coerceField, coerceFields, coerceScalar } from 'svckit';

describe('coerceScalar', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    ['-7', -7],
    ['9007199254740991', 9007199254740991],
  ])('integer %s → %s', (text, value) => expect(coerceScalar(text, 'integer')).toBe(value));

  it.each([
    '0x10',
    ' 5 ',
    '5 ',
    '1e3',
    '',
    '01',
    '-0x1',
    '1.0',
    '+1',
    'Infinity',
    '9007199254740992',
    '1_000',
    '٣',
  ])('integer leaves %j as text', (text) => expect(coerceScalar(text, 'integer')).toBe(text));

  it.each([
    ['0', 0],
    ['1.5', 1.5],
    ['-2.25', -2.25],
    ['1e3', 1000],
    ['2E-2', 0.02],
  ])('number %s → %s', (text, value) => expect(coerceScalar(text, 'number')).toBe(value));

  it.each(['Infinity', '-Infinity', 'NaN', '', ' 1', '.5', '5.', '0x10', '1e999', '01.5', '1,5'])(
    'number leaves %j as text',
    (text) => expect(coerceScalar(text, 'number')).toBe(text),
  );

  it('boolean accepts exactly true and false', () => {
    expect(coerceScalar('true', 'boolean')).toBe(true);
    expect(coerceScalar('false', 'boolean')).toBe(false);
    for (const text of ['TRUE', '1', '0', 'yes', '', ' true'])
      expect(coerceScalar(text, 'boolean')).toBe(text);
  });

  it('null accepts only the empty string', () => {
    expect(coerceScalar('', 'null')).toBeNull();
    expect(coerceScalar('null', 'null')).toBe('null');
  });

  it('string and any leave text alone', () => {
    expect(coerceScalar('12', 'string')).toBe('12');
    expect(coerceScalar('12', 'any')).toBe('12');
  });
});

describe('coerceField', () => {
  it('turns one value into a one-element array for an array field', () => {
    expect(coerceField('3', { items: 'integer' })).toEqual([3]);
  });

  it('coerces each element of a repeated key', () => {
    expect(coerceField(['1', 'x', '3'], { items: 'integer' })).toEqual([1, 'x', 3]);
  });

  it('leaves a repeated key on a scalar field as an array, for validation to report', () => {
    expect(coerceField(['1', '2'], 'integer')).toEqual(['1', '2']);
  });
});

describe('coerceFields', () => {
  it('copies into a null-prototype object and never changes the input', () => {
    const raw = { limit: '10', name: 'x' };
    const result = coerceFields(raw, { limit: 'integer' });
    expect(result).toEqual({ limit: 10, name: 'x' });
    expect(Object.getPrototypeOf(result)).toBeNull();
    expect(raw.limit).toBe('10');
  });

  it('ignores plan entries inherited from Object.prototype', () => {
    const raw = Object.assign(Object.create(null) as Record<string, string>, {
      constructor: '5',
      toString: '1',
    });
    expect(coerceFields(raw, {})).toEqual({ constructor: '5', toString: '1' });
  });
});
