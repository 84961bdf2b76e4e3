// createFileService options: unknown keys and bad values are refused naming the option; defaults apply.
import { describe, expect, it } from 'vitest';
import { memoryDisk } from '../../../../runtime/files/disks/index.js';
import { DEFAULT_MAX_FILE_SIZE } from '../../../../runtime/files/service/api.js';
import { resolveFileServiceOptions } from '../../../../runtime/files/service/options.js';
import { createFileService } from '../../../../runtime/files/service/service.js';
import { MemoryFileStore } from '../../../../runtime/files/store/memory-store.js';

const disk = memoryDisk();
const invalid = (option: string) => expect.objectContaining({ code: 'OPTION_INVALID', option });

describe('createFileService options', () => {
  it('applies the defaults', () => {
    const resolved = resolveFileServiceOptions({ disk });
    expect(resolved.maxSize).toBe(DEFAULT_MAX_FILE_SIZE);
    expect(resolved.maxSize).toBe(26_214_400);
    expect(resolved.sniff).toBe(false);
    expect(resolved.allowedTypes).toBeUndefined();
    expect(resolved.requireScan).toBe(false);
    expect(resolved.tenancy).toBe(false);
    expect(resolved.maxTotalBytes).toBeUndefined();
    expect(resolved.store).toBeInstanceOf(MemoryFileStore);
    expect(resolved.urlBase).toBe('');
    expect(createFileService({ disk }).requireScan).toBe(false);
  });

  it('refuses unknown options, at the top and in validate', () => {
    expect(() => createFileService({ disk, maxTotalByte: 5 } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN', option: 'maxTotalByte' }),
    );
    expect(() => createFileService({ disk, validate: { maxSzie: 5 } } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN', option: 'maxSzie' }),
    );
  });

  it.each([
    ['disk', { disk: {} }],
    ['disk', { disk: undefined }],
    ['validate', { validate: 5 }],
    ['validate.maxSize', { validate: { maxSize: 0 } }],
    ['validate.maxSize', { validate: { maxSize: 1.5 } }],
    ['validate.maxSize', { validate: { maxSize: -Infinity } }],
    ['validate.allowedTypes', { validate: { allowedTypes: ['image/**'] } }],
    ['validate.allowedTypes', { validate: { allowedTypes: 'image/png' } }],
    ['validate.sniff', { validate: { sniff: 'yes' } }],
    ['maxTotalBytes', { maxTotalBytes: 0 }],
    ['maxTotalBytes', { maxTotalBytes: 10.5 }],
    ['checkQuota', { checkQuota: true }],
    ['requireScan', { requireScan: 'true' }],
    ['tenancy', { tenancy: 1 }],
    ['store', { store: {} }],
    ['urlSigningKey', { urlSigningKey: new Uint8Array(31) }],
    ['urlSigningKey', { urlSigningKey: 'a'.repeat(40) }],
    ['urlBase', { urlBase: 'https://x.test/?a=1' }],
    ['clock', { clock: 5 }],
    ['logger', { logger: console.log }],
  ])('refuses a bad %s with OPTION_INVALID', (option, bad) => {
    expect(() => createFileService({ disk, ...bad } as never)).toThrow(invalid(option));
  });

  it('takes Infinity, wildcards, a sniff function, and treats */* as any type', () => {
    const resolved = resolveFileServiceOptions({
      disk,
      validate: { maxSize: Infinity, allowedTypes: ['image/*', 'application/pdf'], sniff: () => null },
      urlSigningKey: new Uint8Array(32),
      urlBase: 'https://files.example/api/',
    });
    expect(resolved.maxSize).toBe(Infinity);
    expect(resolved.allowedTypes).toEqual(['image/*', 'application/pdf']);
    expect(resolved.urlBase).toBe('https://files.example/api');
    expect(
      resolveFileServiceOptions({ disk, validate: { allowedTypes: ['*/*'] } }).allowedTypes,
    ).toBeUndefined();
  });
});
