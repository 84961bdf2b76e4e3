// The clamd URL and the scanner's options are checked when the scanner is made: a wrong address or value is a
// start-up error naming the option, never a quiet scanner that leaves every file quarantined.
import { describe, expect, it } from 'vitest';
import { collectingLogger } from '../../../../runtime/log/index.js';
import {
  attachScanner,
  clamdScanner,
  CLAMD_SCANNER_DEFAULTS,
  parseClamdUrl,
} from '../../../../runtime/files/scan/index.js';
import type { FileService } from '../../../../runtime/files/service/api.js';

describe('parseClamdUrl', () => {
  it.each([
    ['clamd://127.0.0.1:3310', { transport: 'tcp', host: '127.0.0.1', port: 3310 }],
    ['clamd://clamav.internal:9999/', { transport: 'tcp', host: 'clamav.internal', port: 9999 }],
    ['clamd://clamav', { transport: 'tcp', host: 'clamav', port: 3310 }],
    ['clamd://[::1]:3310', { transport: 'tcp', host: '::1', port: 3310 }],
    ['clamd:///var/run/clamav/clamd.ctl', { transport: 'unix', path: '/var/run/clamav/clamd.ctl' }],
    ['clamd:///tmp/with%20space.sock', { transport: 'unix', path: '/tmp/with space.sock' }],
  ])('reads %s', (url, address) => {
    expect(parseClamdUrl(url)).toEqual(address);
  });

  it.each([
    ['tcp://127.0.0.1:3310'],
    ['http://127.0.0.1:3310'],
    ['127.0.0.1:3310'],
    ['clamd:/var/run/clamd.ctl'],
    ['clamd://host:0'],
    ['clamd://host:70000'],
    ['clamd://host/some/path'],
    ['clamd://user:secret@host:3310'],
    ['clamd://host:3310?tls=1'],
    ['clamd:///'],
    ['clamd:///var/run/'],
    [''],
  ])('refuses %s with OPTION_INVALID naming the option', (url) => {
    expect(() => parseClamdUrl(url, 'filesPlugin()', 'scan')).toThrow(
      expect.objectContaining({
        code: 'OPTION_INVALID',
        option: 'scan',
        message: expect.stringContaining('scan must be clamd://'),
      }),
    );
  });

  it('refuses a value that is not a string', () => {
    expect(() => parseClamdUrl(3310)).toThrow(
      expect.objectContaining({ code: 'OPTION_INVALID', option: 'url' }),
    );
  });
});

describe('clamdScanner options', () => {
  it('applies the defaults: 25 MiB, two at a time', () => {
    const scanner = clamdScanner({ url: 'clamd://127.0.0.1:3310' });
    expect(scanner).toMatchObject({
      name: 'clamd 127.0.0.1:3310',
      maxStreamBytes: 26_214_400,
      concurrency: 2,
    });
    expect(CLAMD_SCANNER_DEFAULTS).toEqual({ timeoutMs: 30_000, maxStreamBytes: 26_214_400, concurrency: 2 });
  });

  it('refuses an unknown option', () => {
    expect(() => clamdScanner({ url: 'clamd://127.0.0.1:3310', timeout: 5 } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN', option: 'timeout' }),
    );
  });

  it.each([
    ['url', { url: 'redis://127.0.0.1:6379' }],
    ['url', {}],
    ['timeoutMs', { url: 'clamd://h:1', timeoutMs: 0 }],
    ['timeoutMs', { url: 'clamd://h:1', timeoutMs: 1.5 }],
    ['maxStreamBytes', { url: 'clamd://h:1', maxStreamBytes: -1 }],
    ['maxStreamBytes', { url: 'clamd://h:1', maxStreamBytes: 2 ** 32 }],
    ['concurrency', { url: 'clamd://h:1', concurrency: 0 }],
    ['concurrency', { url: 'clamd://h:1', concurrency: '2' }],
  ])('refuses a bad %s', (option, options) => {
    expect(() => clamdScanner(options as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_INVALID', option }),
    );
  });
});

describe('attachScanner options', () => {
  const files = { on: () => () => undefined } as unknown as FileService;
  const scanner = clamdScanner({ url: 'clamd://127.0.0.1:3310' });

  it('refuses an unknown option and a logger that is not one', () => {
    expect(() => attachScanner(files, scanner, { log: collectingLogger() } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN', option: 'log' }),
    );
    expect(() => attachScanner(files, scanner, { logger: console.log } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_INVALID', option: 'logger' }),
    );
  });
});
