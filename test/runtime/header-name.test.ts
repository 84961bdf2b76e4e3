// lowerHeaderName: the adapters key reply headers by it, so a name set in any case replaces the same header.
import { describe, expect, it } from 'vitest';
import { lowerHeaderName } from '../../runtime/http/header-name.js';

describe('lowerHeaderName', () => {
  it('lower-cases names, the same way on every call', () => {
    for (let round = 0; round < 3; round++) {
      expect(lowerHeaderName('Content-Security-Policy')).toBe('content-security-policy');
      expect(lowerHeaderName('X-Request-ID')).toBe('x-request-id');
      expect(lowerHeaderName('traceparent')).toBe('traceparent');
    }
  });

  it('stays right past the names it remembers', () => {
    for (let index = 0; index < 2000; index++) {
      expect(lowerHeaderName(`X-Made-Up-${index}`)).toBe(`x-made-up-${index}`);
    }
    expect(lowerHeaderName('X-Made-Up-1999')).toBe('x-made-up-1999');
    expect(lowerHeaderName('X-Late-Comer')).toBe('x-late-comer');
  });
});
