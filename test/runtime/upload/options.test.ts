// upload(): required options, defaults, and eager refusal of wrong values naming the option.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_FIELD_BYTES,
  DEFAULT_MAX_FIELDS,
  DEFAULT_MAX_HEADER_BYTES,
  DEFAULT_UPLOAD_LIMITS,
  upload,
  type UploadOptions,
} from '../../../runtime/http/upload/index.js';

describe('upload()', () => {
  it('returns an upload body with the documented defaults filled in', () => {
    expect(upload({ maxBytes: 1000, maxFiles: 2 })).toEqual({
      kind: 'upload',
      limits: {
        maxBytes: 1000,
        maxFiles: 2,
        maxFileBytes: 1000,
        maxFields: 50,
        maxFieldBytes: 65536,
        maxHeaderBytes: 8192,
        allowedTypes: undefined,
      },
    });
  });

  it('exports the defaults as named constants', () => {
    expect(DEFAULT_MAX_FIELDS).toBe(50);
    expect(DEFAULT_MAX_FIELD_BYTES).toBe(64 * 1024);
    expect(DEFAULT_MAX_HEADER_BYTES).toBe(8 * 1024);
    expect(DEFAULT_UPLOAD_LIMITS).toEqual({ maxFields: 50, maxFieldBytes: 65536, maxHeaderBytes: 8192 });
    expect(Object.isFrozen(DEFAULT_UPLOAD_LIMITS)).toBe(true);
  });

  it('keeps every option given', () => {
    const { limits } = upload({
      maxBytes: 10,
      maxFiles: 0,
      maxFileBytes: 5,
      maxFields: 0,
      maxFieldBytes: 0,
      maxHeaderBytes: 100,
      allowedTypes: ['Image/PNG', 'text/*', '*/*'],
    });
    expect(limits).toEqual({
      maxBytes: 10,
      maxFiles: 0,
      maxFileBytes: 5,
      maxFields: 0,
      maxFieldBytes: 0,
      maxHeaderBytes: 100,
      allowedTypes: ['image/png', 'text/*', '*/*'],
    });
    expect(Object.isFrozen(limits)).toBe(true);
    expect(Object.isFrozen(limits.allowedTypes)).toBe(true);
  });

  it('copies allowedTypes, so changing the caller array later changes nothing', () => {
    const types = ['image/png'];
    const { limits } = upload({ maxBytes: 10, maxFiles: 1, allowedTypes: types });
    types.push('text/plain');
    expect(limits.allowedTypes).toEqual(['image/png']);
  });

  it.each<[string, unknown]>([
    ['maxBytes', undefined],
    ['maxBytes', 0],
    ['maxBytes', -1],
    ['maxBytes', 1.5],
    ['maxBytes', '10'],
    ['maxBytes', Number.NaN],
    ['maxBytes', Number.POSITIVE_INFINITY],
    ['maxFiles', undefined],
    ['maxFiles', -1],
    ['maxFiles', 0.5],
    ['maxFileBytes', 0],
    ['maxFileBytes', 2.5],
    ['maxFields', -1],
    ['maxFieldBytes', -1],
    ['maxFieldBytes', '1'],
    ['maxHeaderBytes', 0],
    ['maxHeaderBytes', 1e20],
  ])('refuses %s = %j with a TypeError naming it', (name, value) => {
    const options = { maxBytes: 100, maxFiles: 1, [name]: value } as unknown as UploadOptions;
    expect(() => upload(options)).toThrow(TypeError);
    expect(() => upload(options)).toThrow(name);
  });

  it.each<unknown>([
    [],
    'image/png',
    ['image'],
    ['image/'],
    ['/png'],
    ['*/png'],
    ['image/png; charset=x'],
    ['image/png '],
    ['ima ge/png'],
    [''],
    [42],
    ['image/**'],
  ])('refuses allowedTypes %j', (allowedTypes) => {
    const options = { maxBytes: 100, maxFiles: 1, allowedTypes } as unknown as UploadOptions;
    expect(() => upload(options)).toThrow(TypeError);
    expect(() => upload(options)).toThrow('allowedTypes');
  });

  it('refuses unknown options, so a misspelt limit is not silently ignored', () => {
    const options = { maxBytes: 100, maxFiles: 1, maxFileSize: 5 } as unknown as UploadOptions;
    expect(() => upload(options)).toThrow(/unknown option "maxFileSize"/);
  });

  it('refuses a missing options object', () => {
    expect(() => upload(undefined as unknown as UploadOptions)).toThrow(TypeError);
  });
});
