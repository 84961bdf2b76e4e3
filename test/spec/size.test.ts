// Sizes as svc writes them: bytes, or a number with a decimal or binary unit.
import { describe, expect, it } from 'vitest';
import { formatSize, parseSize, sizeUnitLike } from '../../shared/size.js';

describe('parseSize', () => {
  it('reads bytes, digit strings and every unit exactly', () => {
    expect(parseSize(0)).toBe(0);
    expect(parseSize(1048576)).toBe(1048576);
    expect(parseSize('4096')).toBe(4096);
    expect(parseSize('10B')).toBe(10);
    expect(parseSize('10KB')).toBe(10_000);
    expect(parseSize('10MB')).toBe(10_000_000);
    expect(parseSize('2GB')).toBe(2_000_000_000);
    expect(parseSize('64KiB')).toBe(65536);
    expect(parseSize('25MiB')).toBe(26214400);
    expect(parseSize('2GiB')).toBe(2147483648);
    expect(parseSize('25 MiB')).toBe(26214400);
  });

  it('takes fractions that make whole bytes, computed exactly', () => {
    expect(parseSize('1.5MiB')).toBe(1572864);
    expect(parseSize('0.5KiB')).toBe(512);
    // 1.001 * 1000 is 1000.9999999999999 in floating point.
    expect(parseSize('1.001KB')).toBe(1001);
    expect(parseSize('1.1B')).toBeUndefined();
    expect(parseSize('0.0001KB')).toBeUndefined();
  });

  it('refuses everything else', () => {
    for (const value of [
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      '',
      'MiB',
      '25mib',
      '25MIB',
      '25 megabytes',
      '25  MiB',
      ' 25MiB',
      '-1KiB',
      '1e3',
      '0x10',
      '1TiB',
      '9999999999GiB',
      'constructor',
      '1constructor',
      '1__proto__',
      true,
      null,
      undefined,
      [1],
      { bytes: 1 },
    ]) {
      expect(parseSize(value), String(value)).toBeUndefined();
    }
  });
});

describe('sizeUnitLike', () => {
  it('names the unit meant when only its case is wrong', () => {
    expect(sizeUnitLike('25mib')).toBe('MiB');
    expect(sizeUnitLike('10 mb')).toBe('MB');
    expect(sizeUnitLike('25 megabytes')).toBeUndefined();
  });
});

describe('formatSize', () => {
  it('uses the largest unit that divides exactly, binary first', () => {
    expect(formatSize(26214400)).toBe('25 MiB');
    expect(formatSize(10_000_000)).toBe('10 MB');
    expect(formatSize(2048)).toBe('2 KiB');
    expect(formatSize(2000)).toBe('2 KB');
    expect(formatSize(2147483648)).toBe('2 GiB');
    expect(formatSize(1500)).toBe('1500 bytes');
    expect(formatSize(1)).toBe('1 byte');
  });
});
