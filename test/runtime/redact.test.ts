// redactSensitiveDetails: secret-named keys at any depth become '[REDACTED]'; booleans and null stay.
import { describe, expect, it } from 'vitest';
import { isSensitiveKey, REDACTED, redactSensitiveDetails } from 'svckit';

describe('redactSensitiveDetails', () => {
  it.each([
    'password',
    'newPassword',
    'PASSWORD_HASH',
    'passwd',
    'secret',
    'clientSecret',
    'token',
    'accessToken',
    'refresh_token',
    'apiKey',
    'api_key',
    'API-Key',
    'x-api-key',
    'authorization',
    'Authorization',
    'cookie',
    'set-cookie',
    'sessionId',
    'credentials',
    'privateKey',
    'recoveryCodes',
    'otp',
    'totp',
    'otpCode',
  ])('treats %s as secret-named', (key) => {
    expect(isSensitiveKey(key)).toBe(true);
    expect(redactSensitiveDetails({ [key]: 'value' })).toEqual({ [key]: REDACTED });
  });

  it.each(['email', 'name', 'author', 'footprint', 'id', 'status', 'keyboard'])('keeps %s', (key) => {
    expect(isSensitiveKey(key)).toBe(false);
    expect(redactSensitiveDetails({ [key]: 'value' })).toEqual({ [key]: 'value' });
  });

  it('redacts at any depth, inside arrays too', () => {
    const input = { user: { profile: { token: 'abc', name: 'n' } }, list: [{ secret: 's', ok: 1 }] };
    expect(redactSensitiveDetails(input)).toEqual({
      user: { profile: { token: REDACTED, name: 'n' } },
      list: [{ secret: REDACTED, ok: 1 }],
    });
  });

  it('keeps booleans and null under secret-named keys, redacts numbers, objects and arrays', () => {
    expect(
      redactSensitiveDetails({
        passwordSet: true,
        token: null,
        apiKey: false,
        pin: 1,
        secret: { a: 1 },
        cookie: ['x'],
      }),
    ).toEqual({ passwordSet: true, token: null, apiKey: false, pin: 1, secret: REDACTED, cookie: REDACTED });
  });

  it('does not change its input', () => {
    const input = { token: 'abc' };
    redactSensitiveDetails(input);
    expect(input.token).toBe('abc');
  });
});
