// Two-factor codes: RFC 6238 TOTP (SHA-1, 6 digits, 30 s) matched within a window and reported by time step so
// a store can accept each code once, the key URI an authenticator app scans, and one-time recovery codes that
// are stored as hashes and never confused with a TOTP code.
import { createHmac } from 'node:crypto';
import { HOTP, Secret, TOTP, URI } from 'otpauth';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  classifyCode,
  hashRecoveryCode,
  newRecoveryCodes,
  normalizeRecoveryCode,
} from '../../runtime/auth/mfa/recovery-codes.js';
import {
  looksLikeTotp,
  matchTotp,
  newTotpSecret,
  otpauthUri,
  totpStep,
} from '../../runtime/auth/mfa/totp.js';

/** RFC 6238 appendix B's SHA-1 secret, the ASCII bytes "12345678901234567890". */
const RFC_SECRET = Secret.fromLatin1('12345678901234567890').base32;
const FIXED_SECRET = 'JBSWY3DPEHPK3PXP7QDSM4ZNFUQWK4LS';

/** An independent RFC 4226/6238 reference: HMAC-SHA-1 over the big-endian step, dynamic truncation, 6 digits. */
function referenceCode(secretBase32: string, unixSeconds: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)));
  const digest = createHmac('sha1', Secret.fromBase32(secretBase32).bytes).update(message).digest();
  const offset = (digest[19] as number) & 0xf;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

function codeAtStep(secret: string, step: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: step * 30_000 });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('TOTP secrets', () => {
  it('are 20 random bytes shown as 32 characters of unpadded base32', () => {
    const secrets = new Set(Array.from({ length: 20 }, () => newTotpSecret()));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(Secret.fromBase32(secret).bytes.length).toBe(20);
    }
  });
});

describe('matchTotp: RFC 6238 codes', () => {
  // RFC 6238 appendix B, SHA-1 rows. The RFC prints 8 digits; a 6-digit code is the same truncated value mod
  // 10^6, i.e. the RFC's last six digits (94287082 -> 287082).
  const vectors: Array<[seconds: number, code: string]> = [
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
    [20000000000, '353130'],
  ];

  it.each(vectors)('T=%i gives %s, matched at its own step', (seconds, code) => {
    expect(referenceCode(RFC_SECRET, seconds)).toBe(code);
    expect(TOTP.generate({ secret: Secret.fromBase32(RFC_SECRET), timestamp: seconds * 1000 })).toBe(code);
    expect(matchTotp(RFC_SECRET, code, { now: seconds * 1000, window: 0 })).toBe(Math.floor(seconds / 30));
  });

  it('agrees with an independent HMAC-SHA-1 reference for fixed secrets and times', () => {
    const secrets = [FIXED_SECRET, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBV', RFC_SECRET];
    const times = [0, 29, 30, 1_700_000_000, 1_700_000_029, 4_102_444_800];
    for (const secret of secrets) {
      for (const seconds of times) {
        const code = referenceCode(secret, seconds);
        expect(codeAtStep(secret, Math.floor(seconds / 30))).toBe(code);
        expect(matchTotp(secret, code, { now: seconds * 1000 + 999, window: 0 })).toBe(
          Math.floor(seconds / 30),
        );
      }
    }
  });

  it('refuses a wrong code and a code from another secret', () => {
    const now = 1_700_000_000_000;
    const step = totpStep(now);
    const right = codeAtStep(FIXED_SECRET, step);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    expect(matchTotp(FIXED_SECRET, right, { now })).toBe(step);
    expect(matchTotp(FIXED_SECRET, wrong, { now, window: 0 })).toBeUndefined();
    expect(matchTotp(newTotpSecret(), right, { now, window: 0 })).toBeUndefined();
  });
});

describe('matchTotp: window and time steps', () => {
  const step = 56_666_666;
  const now = step * 30_000 + 12_345;

  it('accepts the neighbouring steps with the default window of 1 and reports which one matched', () => {
    expect(matchTotp(FIXED_SECRET, codeAtStep(FIXED_SECRET, step), { now })).toBe(step);
    expect(matchTotp(FIXED_SECRET, codeAtStep(FIXED_SECRET, step - 1), { now })).toBe(step - 1);
    expect(matchTotp(FIXED_SECRET, codeAtStep(FIXED_SECRET, step + 1), { now })).toBe(step + 1);
  });

  it('refuses codes two steps away unless the window is widened', () => {
    for (const far of [step - 2, step + 2]) {
      const code = codeAtStep(FIXED_SECRET, far);
      expect(matchTotp(FIXED_SECRET, code, { now })).toBeUndefined();
      expect(matchTotp(FIXED_SECRET, code, { now, window: 2 })).toBe(far);
    }
    expect(matchTotp(FIXED_SECRET, codeAtStep(FIXED_SECRET, step - 1), { now, window: 0 })).toBeUndefined();
  });

  it('puts the step boundary at every 30 s (fake clock)', () => {
    const boundary = (step + 1) * 30_000;
    expect(totpStep(boundary - 1)).toBe(step);
    expect(totpStep(boundary)).toBe(step + 1);
    const before = TOTP.generate({ secret: Secret.fromBase32(FIXED_SECRET), timestamp: boundary - 1 });
    const after = TOTP.generate({ secret: Secret.fromBase32(FIXED_SECRET), timestamp: boundary });
    expect(matchTotp(FIXED_SECRET, before, { now: boundary - 1, window: 0 })).toBe(step);
    expect(matchTotp(FIXED_SECRET, after, { now: boundary, window: 0 })).toBe(step + 1);
    // Typed just before the boundary and checked just after: still accepted, reported at its own step.
    expect(matchTotp(FIXED_SECRET, before, { now: boundary })).toBe(step);
    expect(matchTotp(FIXED_SECRET, before, { now: boundary, window: 0 })).toBeUndefined();
  });

  it('reports a replayed code at the step it was first accepted at, so a last-step store refuses it', () => {
    const code = codeAtStep(FIXED_SECRET, step);
    const accepted = matchTotp(FIXED_SECRET, code, { now });
    const replayed = matchTotp(FIXED_SECRET, code, { now: now + 30_000 });
    expect(accepted).toBe(step);
    expect(replayed).toBe(step);
    expect((replayed as number) > (accepted as number)).toBe(false);
  });

  it('reads the real clock when no time is given', () => {
    vi.useFakeTimers({ now: now, toFake: ['Date'] });
    try {
      expect(matchTotp(FIXED_SECRET, codeAtStep(FIXED_SECRET, step))).toBe(step);
    } finally {
      vi.useRealTimers();
    }
  });

  it('near the epoch, never looks at negative steps', () => {
    expect(matchTotp(RFC_SECRET, codeAtStep(RFC_SECRET, 0), { now: 0 })).toBe(0);
    expect(matchTotp(RFC_SECRET, codeAtStep(RFC_SECRET, 1), { now: 0 })).toBe(1);
  });
});

describe('matchTotp: only six ASCII digits are considered', () => {
  const now = 59_000;
  const good = '287082';

  it('trims surrounding spaces', () => {
    expect(matchTotp(RFC_SECRET, ` ${good}  `, { now })).toBe(1);
    expect(matchTotp(RFC_SECRET, `\t${good}\n`, { now })).toBe(1);
  });

  const malformed: Array<[label: string, input: unknown]> = [
    ['too short', '28708'],
    ['too long', '2870820'],
    ['the RFC 8-digit form', '94287082'],
    ['a letter', '28708a'],
    ['a sign', '+287082'],
    ['an inner space', '287 082'],
    ['a dash', '287-082'],
    ['full-width digits', '２８７０８２'],
    ['Arabic-Indic digits', '٢٨٧٠٨٢'],
    ['Devanagari digits', '२८७०८२'],
    ['empty', ''],
    ['huge', `${good}${' '.repeat(10_000)}`],
    ['a number', 287082],
    ['null', null],
  ];

  it.each(malformed)('%s is no match, decided before any HMAC runs', (_label, input) => {
    const generate = vi.spyOn(HOTP, 'generate');
    expect(matchTotp(RFC_SECRET, input as string, { now })).toBeUndefined();
    expect(generate).not.toHaveBeenCalled();
  });

  it('a well-formed wrong code costs the same HMACs as a right one (no early exit)', () => {
    const generate = vi.spyOn(HOTP, 'generate');
    matchTotp(RFC_SECRET, '000000', { now: 90_000_000 });
    expect(generate).toHaveBeenCalledTimes(3);
    const right = codeAtStep(RFC_SECRET, 3_000 - 1);
    generate.mockClear();
    expect(matchTotp(RFC_SECRET, right, { now: 90_000_000 })).toBe(2_999);
    expect(generate).toHaveBeenCalledTimes(3);
  });

  it('looksLikeTotp returns the trimmed code or undefined', () => {
    expect(looksLikeTotp(' 012345 ')).toBe('012345');
    expect(looksLikeTotp('٠١٢٣٤٥')).toBeUndefined();
    expect(looksLikeTotp('abcd-efgh-ijkl-mnop')).toBeUndefined();
  });
});

describe('matchTotp: options and secrets', () => {
  it('refuses unknown options, a bad clock or window, and a secret that is not base32 of 128+ bits', () => {
    const now = 59_000;
    expect(() => matchTotp(RFC_SECRET, '287082', { now, windw: 2 } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN', message: expect.stringContaining('"window"') }),
    );
    for (const bad of [
      { now: -1 },
      { now: Number.NaN },
      { now: '59000' },
      { window: -1 },
      { window: 1.5 },
      { window: 11 },
    ]) {
      expect(() => matchTotp(RFC_SECRET, '287082', bad as never)).toThrow(
        expect.objectContaining({ code: 'OPTION_INVALID' }),
      );
    }
    for (const secret of ['', 'not base32!', 'JBSWY3DPEHPK3PXP', 12 as unknown as string]) {
      expect(() => matchTotp(secret, '287082', { now })).toThrow(
        expect.objectContaining({ code: 'OPTION_INVALID' }),
      );
    }
  });
});

describe('otpauthUri', () => {
  it('names the issuer in the label and the parameter, with SHA-1, 6 digits and 30 s', () => {
    const uri = otpauthUri({ secret: FIXED_SECRET, issuer: 'Acme', account: 'alice@example.com' });
    expect(uri).toBe(
      `otpauth://totp/Acme:alice%40example.com?issuer=Acme&secret=${FIXED_SECRET}&algorithm=SHA1&digits=6&period=30`,
    );
  });

  it('percent-encodes every part and round-trips through a parser', () => {
    const issuer = 'Acme & Co #1/Ünï';
    const account = 'bob+mfa@example.com';
    const uri = otpauthUri({ secret: FIXED_SECRET, issuer, account });
    const url = new URL(uri);
    expect(url.protocol).toBe('otpauth:');
    expect(url.hash).toBe('');
    expect(url.searchParams.get('issuer')).toBe(issuer);
    expect(url.searchParams.get('secret')).toBe(FIXED_SECRET);
    expect([...url.searchParams.keys()]).toEqual(['issuer', 'secret', 'algorithm', 'digits', 'period']);
    expect(uri).toContain(`/${encodeURIComponent(issuer)}:${encodeURIComponent(account)}?`);
    expect(uri.slice(0, uri.indexOf('?'))).not.toMatch(/[ &#+@Üï]/);
    const parsed = URI.parse(uri);
    expect(parsed).toBeInstanceOf(TOTP);
    expect(parsed.issuer).toBe(issuer);
    expect(parsed.label).toBe(account);
    expect(parsed.secret.base32).toBe(FIXED_SECRET);
    expect((parsed as TOTP).generate({ timestamp: 59_000 })).toBe(referenceCode(FIXED_SECRET, 59));
  });

  it('refuses an empty issuer or account, an issuer with a colon, and a bad secret', () => {
    const base = { secret: FIXED_SECRET, issuer: 'Acme', account: 'alice@example.com' };
    for (const bad of [
      { issuer: '' },
      { issuer: ' ' },
      { issuer: 'Acme:Prod' },
      { account: '' },
      { secret: 'x' },
    ]) {
      expect(() => otpauthUri({ ...base, ...bad })).toThrow(
        expect.objectContaining({ code: 'OPTION_INVALID' }),
      );
    }
  });
});

describe('recovery codes', () => {
  const format = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;

  it('are ten distinct 80-bit codes in groups of four, each with its hash', () => {
    const { codes, hashes } = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(new Set(hashes).size).toBe(10);
    codes.forEach((code, index) => {
      expect(code).toMatch(format);
      const normalized = normalizeRecoveryCode(code) as string;
      expect(normalized).toBe(code.replaceAll('-', ''));
      // RFC 4648 base32 of exactly 10 bytes: decodes to 80 bits and re-encodes to the same characters.
      const bytes = Secret.fromBase32(normalized).bytes;
      expect(bytes.length).toBe(10);
      expect(new Secret({ buffer: Uint8Array.from(bytes).buffer }).base32.toLowerCase()).toBe(normalized);
      expect(hashes[index]).toBe(hashRecoveryCode(normalized));
      expect(hashes[index]).toMatch(/^[0-9a-f]{64}$/);
    });
    expect(newRecoveryCodes().codes.some((code) => codes.includes(code))).toBe(false);
  });

  it('takes a count, refusing nonsense', () => {
    expect(newRecoveryCodes(3).codes).toHaveLength(3);
    for (const bad of [0, -1, 2.5, 101, Number.NaN]) {
      expect(() => newRecoveryCodes(bad)).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
    }
  });

  it('normalizes case, spaces and dashes', () => {
    const canonical = 'abcdefghijklmnop';
    for (const typed of [
      'abcd-efgh-ijkl-mnop',
      'ABCD-EFGH-IJKL-MNOP',
      '  abcd efgh ijkl mnop \n',
      'AbCdEfGhIjKlMnOp',
      'abcd--efgh - ijkl-mnop',
    ]) {
      expect(normalizeRecoveryCode(typed)).toBe(canonical);
    }
  });

  it('refuses anything that is not then 16 characters of the alphabet', () => {
    for (const typed of [
      'abcd-efgh-ijkl-mno',
      'abcd-efgh-ijkl-mnopq',
      'abcd-efgh-ijkl-mn0p',
      'abcd-efgh-ijkl-mn1p',
      'abcd-efgh-ijkl-mn8p',
      'abcd_efgh_ijkl_mnop',
      'abcd-efgh-ijkl-mno\u212A', // Kelvin sign, which lower-cases to "k"
      'ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐ',
      '',
      `abcd-efgh-ijkl-mnop${' '.repeat(100)}`,
      42,
      undefined,
    ]) {
      expect(normalizeRecoveryCode(typed)).toBeUndefined();
    }
  });

  it('hashes are SHA-256 hex of the normalized code, stable across calls and releases', () => {
    expect(hashRecoveryCode('abcdefghijklmnop')).toBe(
      'f39dac6cbaba535e2c207cd0cd8f154974223c848f727f98b3564cea569b41cf',
    );
    expect(hashRecoveryCode('abcdefghijklmnop')).toBe(
      hashRecoveryCode(normalizeRecoveryCode('ABCD EFGH-ijkl mnop')!),
    );
    expect(() => hashRecoveryCode('abcd-efgh-ijkl-mnop')).toThrow(TypeError);
    expect(() => hashRecoveryCode('ABCDEFGHIJKLMNOP')).toThrow(TypeError);
  });
});

describe('classifyCode', () => {
  it('tells a TOTP code from a recovery code', () => {
    expect(classifyCode(' 287082 ')).toEqual({ kind: 'totp', code: '287082' });
    expect(classifyCode('ABCD efgh-IJKL mnop')).toEqual({
      kind: 'recovery',
      hash: 'f39dac6cbaba535e2c207cd0cd8f154974223c848f727f98b3564cea569b41cf',
    });
    const { codes, hashes } = newRecoveryCodes(1);
    expect(classifyCode(codes[0])).toEqual({ kind: 'recovery', hash: hashes[0] });
  });

  it('never takes a TOTP-looking input for a recovery code', () => {
    for (const typed of [
      '287082',
      '28708',
      '2870820',
      '287 082',
      '287-082',
      '94287082',
      '234567',
      '٢٨٧٠٨٢',
    ]) {
      expect(classifyCode(typed)?.kind).not.toBe('recovery');
      expect(normalizeRecoveryCode(typed)).toBeUndefined();
    }
    expect(classifyCode('287 082')).toBeUndefined();
    expect(classifyCode('')).toBeUndefined();
    expect(classifyCode(null)).toBeUndefined();
  });
});
