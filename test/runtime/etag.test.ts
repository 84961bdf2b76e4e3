// ETag and If-None-Match (RFC 9110 weak comparison for If-None-Match).
import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches, strongEtag } from 'svckit';

describe('strongEtag', () => {
  it('is a quoted strong tag that depends on the exact bytes', () => {
    const tag = strongEtag('{"a":1}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(strongEtag(Buffer.from('{"a":1}'))).toBe(tag);
    expect(strongEtag('{"a":2}')).not.toBe(tag);
    expect(strongEtag('{"a":1} ')).not.toBe(tag);
  });
});

describe('ifNoneMatchMatches', () => {
  const tag = '"abc"';

  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" , "y"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['"ab"c"', false],
    ['', false],
    ['"x", garbage, "abc"', true],
  ])('%j → %s', (header, expected) => expect(ifNoneMatchMatches(header, tag)).toBe(expected));

  it('is false without the header', () => {
    expect(ifNoneMatchMatches(undefined, tag)).toBe(false);
  });
});
