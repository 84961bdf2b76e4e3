// An inbound x-request-id is used only when it matches ^[A-Za-z0-9._:-]{1,128}$.
import { describe, expect, it } from 'vitest';
import { correlationIdFrom, requestIdFrom } from 'svckit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it.each(['abc', 'A.b_c:d-1', 'x'.repeat(128)])('accepts %j', (id) => {
    expect(requestIdFrom({ 'x-request-id': id })).toBe(id);
  });

  it.each(['', 'x'.repeat(129), 'has space', 'new\nline', 'ünï', 'a/b', '<script>', 'a,b'])(
    'replaces %j with a UUID',
    (id) => {
      expect(requestIdFrom({ 'x-request-id': id })).toMatch(UUID);
    },
  );

  it('generates a fresh UUID when absent', () => {
    const first = requestIdFrom({});
    expect(first).toMatch(UUID);
    expect(requestIdFrom({})).not.toBe(first);
  });
});

describe('correlationIdFrom', () => {
  it('uses an acceptable x-correlation-id', () => {
    expect(correlationIdFrom({ 'x-correlation-id': 'corr-1' }, 'req')).toBe('corr-1');
  });

  it('falls back to the request id when absent or unacceptable', () => {
    expect(correlationIdFrom({}, 'req')).toBe('req');
    expect(correlationIdFrom({ 'x-correlation-id': 'bad value' }, 'req')).toBe('req');
  });
});
