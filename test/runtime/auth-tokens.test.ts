// Auth tokens: the signing-secret
// rule and its derived keys, opaque tokens and their stored hash, HS256 `at+jwt` access tokens that refuse
// everything but exactly what svc signs (with a bounded cache of verified tokens that honours `exp`), and
// session ids whose amr is HMAC-signed.
import { createHash, createHmac } from 'node:crypto';
import * as jose from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../runtime/http/errors.js';
import {
  AccessTokens,
  KEY_PURPOSES,
  MAX_ACCESS_TOKEN_LENGTH,
  MAX_SESSION_ID_LENGTH,
  SessionIds,
  assertSigningSecret,
  deriveKey,
  hashToken,
  isCanonicalCompactJws,
  isProductionEnv,
  newOpaqueToken,
  sessionIdHash,
} from '../../runtime/auth/tokens/index.js';

// Counts jose verifications, so the cache tests can say how often jose really ran.
vi.mock('jose', async (importOriginal) => {
  const actual = await importOriginal<typeof jose>();
  return { ...actual, jwtVerify: vi.fn(actual.jwtVerify) };
});
const joseVerifications = () => vi.mocked(jose.jwtVerify).mock.calls.length;

const SECRET = 'a-signing-secret-of-forty-characters-0123';
const OTHER_SECRET = 'another-signing-secret-of-forty-chars-999';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const FIFTEEN_MINUTES = 15 * 60 * 1000;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A clock the test moves by hand. */
function manualClock(start = T0) {
  let now = start;
  return { now: () => now, set: (value: number) => (now = value), advance: (ms: number) => (now += ms) };
}

const accessKey = (secret = SECRET) => deriveKey(secret, KEY_PURPOSES.accessToken);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hmac256 = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest('base64url');
const standardClaims = (now = T0) => ({
  sub: 'user-1',
  amr: ['pwd'],
  iat: Math.floor(now / 1000),
  exp: Math.floor((now + FIFTEEN_MINUTES) / 1000),
});

/** A compact JWT built by hand: any header and payload, signed with HMAC-SHA256 under `key`. */
function handSigned(header: object, payload: object, key: Buffer = accessKey()): string {
  const signingInput = `${b64url(header)}.${b64url(payload)}`;
  return `${signingInput}.${hmac256(key, signingInput)}`;
}

/** A token signed by jose with svc's derived key but any header and claims. */
function joseSigned(
  header: jose.JWTHeaderParameters,
  claims: jose.JWTPayload,
  key: Uint8Array = accessKey(),
) {
  return new jose.SignJWT(claims).setProtectedHeader(header).sign(key);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

/** The promise rejects with the catalog's 401 `code` (an HttpError, never a jose error). */
async function expectRefused(promise: Promise<unknown>, code: 'AUTH_TOKEN_INVALID' | 'AUTH_TOKEN_EXPIRED') {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(HttpError);
  expect(error).toMatchObject({ status: 401, code });
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return expect.fail('expected a throw');
}

describe('signing secret', () => {
  const short = 'x'.repeat(31);

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('counts everything but exactly development and test as production, an unset NODE_ENV included', () => {
    for (const env of [undefined, 'production', 'staging', 'Development', 'TEST', '']) {
      expect(isProductionEnv(env)).toBe(true);
    }
    expect(isProductionEnv('development')).toBe(false);
    expect(isProductionEnv('test')).toBe(false);
  });

  it('reads process.env.NODE_ENV when no value is passed', () => {
    vi.stubEnv('NODE_ENV', 'production');
    expect(isProductionEnv()).toBe(true);
    vi.stubEnv('NODE_ENV', 'development');
    expect(isProductionEnv()).toBe(false);
    vi.stubEnv('NODE_ENV', undefined);
    expect(isProductionEnv()).toBe(true);
  });

  it('refuses a 31-character secret in production with the boot error AUTH_WEAK_SECRET', () => {
    for (const env of [undefined, 'production', 'staging']) {
      const error = thrownBy(() => assertSigningSecret(short, env));
      expect(error).toMatchObject({ code: 'AUTH_WEAK_SECRET', status: undefined, name: 'BootError' });
    }
    vi.stubEnv('NODE_ENV', undefined);
    expect(thrownBy(() => assertSigningSecret(short))).toMatchObject({ code: 'AUTH_WEAK_SECRET' });
  });

  it('accepts a 31-character secret in development and test, and 32 characters everywhere', () => {
    expect(() => assertSigningSecret(short, 'development')).not.toThrow();
    expect(() => assertSigningSecret(short, 'test')).not.toThrow();
    for (const env of [undefined, 'production', 'staging', 'development', 'test']) {
      expect(() => assertSigningSecret('x'.repeat(32), env)).not.toThrow();
    }
  });

  it('refuses an empty secret everywhere, development and test included', () => {
    for (const env of [undefined, 'production', 'development', 'test']) {
      expect(thrownBy(() => assertSigningSecret('', env))).toMatchObject({ code: 'AUTH_WEAK_SECRET' });
    }
    expect(thrownBy(() => new AccessTokens({ secret: '', nodeEnv: 'test' }))).toMatchObject({
      code: 'AUTH_WEAK_SECRET',
    });
    expect(thrownBy(() => new SessionIds({ secret: '', nodeEnv: 'development' }))).toMatchObject({
      code: 'AUTH_WEAK_SECRET',
    });
  });

  it('applies the rule when the token classes are built', () => {
    expect(thrownBy(() => new AccessTokens({ secret: short, nodeEnv: 'production' }))).toMatchObject({
      code: 'AUTH_WEAK_SECRET',
    });
    expect(thrownBy(() => new SessionIds({ secret: short, nodeEnv: undefined }))).toMatchObject({
      code: 'AUTH_WEAK_SECRET',
    });
    expect(() => new AccessTokens({ secret: short, nodeEnv: 'test' })).not.toThrow();
  });

  it('derives deterministic 32-byte keys that differ per purpose and per secret', () => {
    const jwtKey = deriveKey(SECRET, KEY_PURPOSES.accessToken);
    const sessionKey = deriveKey(SECRET, KEY_PURPOSES.sessionId);
    expect(jwtKey).toHaveLength(32);
    expect(deriveKey(SECRET, KEY_PURPOSES.accessToken).equals(jwtKey)).toBe(true);
    expect(sessionKey.equals(jwtKey)).toBe(false);
    expect(deriveKey(SECRET, KEY_PURPOSES.oauthState).equals(jwtKey)).toBe(false);
    // One label per use: no two uses of the secret share a key.
    const labels = Object.values(KEY_PURPOSES);
    expect(new Set(labels).size).toBe(labels.length);
    expect(deriveKey(OTHER_SECRET, KEY_PURPOSES.accessToken).equals(jwtKey)).toBe(false);
    expect(jwtKey.equals(Buffer.from(SECRET).subarray(0, 32))).toBe(false);
    expect(() => deriveKey(SECRET, '')).toThrow(TypeError);
  });
});

describe('opaque tokens', () => {
  it('are 32 random bytes in unpadded base64url', () => {
    const tokens = new Set(Array.from({ length: 100 }, newOpaqueToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as the base64url SHA-256 of the whole token', () => {
    const token = newOpaqueToken();
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('base64url'));
    expect(hashToken(token)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(`${token} `)).not.toBe(hashToken(token));
  });
});

describe('AccessTokens', () => {
  let clock: ReturnType<typeof manualClock>;
  let tokens: AccessTokens;

  beforeEach(() => {
    vi.mocked(jose.jwtVerify).mockClear();
    clock = manualClock();
    tokens = new AccessTokens({ secret: SECRET, clock: clock.now });
  });

  it('round-trips the user, the amr and the expiry', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd', 'mfa'] });
    expect(await tokens.verify(token)).toEqual({
      userId: 'user-1',
      amr: ['pwd', 'mfa'],
      expiresAt: T0 + FIFTEEN_MINUTES,
    });
  });

  it('writes an HS256 at+jwt header and the sub, amr, iat and exp claims', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['fed', 'mfa'] });
    expect(jose.decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(jose.decodeJwt(token)).toEqual({
      sub: 'user-1',
      amr: ['fed', 'mfa'],
      iat: T0 / 1000,
      exp: (T0 + FIFTEEN_MINUTES) / 1000,
    });
  });

  it('honours ttlMs', async () => {
    const short = new AccessTokens({ secret: SECRET, clock: clock.now, ttlMs: 60_000 });
    const token = await short.sign({ userId: 'u', amr: [] });
    expect(jose.decodeJwt(token).exp).toBe((T0 + 60_000) / 1000);
    expect((await short.verify(token)).amr).toEqual([]);
  });

  it('writes and then requires the configured issuer', async () => {
    const issued = new AccessTokens({ secret: SECRET, clock: clock.now, issuer: 'https://a.example' });
    const token = await issued.sign({ userId: 'user-1', amr: ['pwd'] });
    expect(jose.decodeJwt(token).iss).toBe('https://a.example');
    expect((await issued.verify(token)).userId).toBe('user-1');

    const otherIssuer = new AccessTokens({ secret: SECRET, clock: clock.now, issuer: 'https://b.example' });
    await expectRefused(otherIssuer.verify(token), 'AUTH_TOKEN_INVALID');
    const withoutIss = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    await expectRefused(issued.verify(withoutIss), 'AUTH_TOKEN_INVALID');
  });

  it('refuses alg none', async () => {
    const payload = b64url(standardClaims());
    for (const alg of ['none', 'None', 'NONE']) {
      await expectRefused(
        tokens.verify(`${b64url({ alg, typ: 'at+jwt' })}.${payload}.`),
        'AUTH_TOKEN_INVALID',
      );
    }
  });

  it('refuses an RS256 token, and a forged RS256 header over an HMAC signature', async () => {
    const { privateKey } = await jose.generateKeyPair('RS256');
    const rs256 = await new jose.SignJWT({ amr: ['pwd'] })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
      .setSubject('user-1')
      .setIssuedAt(T0 / 1000)
      .setExpirationTime((T0 + FIFTEEN_MINUTES) / 1000)
      .sign(privateKey);
    await expectRefused(tokens.verify(rs256), 'AUTH_TOKEN_INVALID');

    const forged = handSigned({ alg: 'RS256', typ: 'at+jwt' }, standardClaims());
    await expectRefused(tokens.verify(forged), 'AUTH_TOKEN_INVALID');
  });

  it('refuses HS512 (and HS384) even with the right key', async () => {
    for (const alg of ['HS512', 'HS384']) {
      const token = await joseSigned({ alg, typ: 'at+jwt' }, standardClaims());
      await expectRefused(tokens.verify(token), 'AUTH_TOKEN_INVALID');
    }
  });

  it('refuses a tampered payload and a tampered signature', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    const [header = '', payload = '', signature = ''] = token.split('.');
    const claims = jose.decodeJwt(token);

    const moreAmr = b64url({ ...claims, amr: ['pwd', 'mfa'] });
    await expectRefused(tokens.verify(`${header}.${moreAmr}.${signature}`), 'AUTH_TOKEN_INVALID');
    const otherUser = b64url({ ...claims, sub: 'admin' });
    await expectRefused(tokens.verify(`${header}.${otherUser}.${signature}`), 'AUTH_TOKEN_INVALID');

    const flipped = signature[10] === 'A' ? 'B' : 'A';
    const badSignature = `${signature.slice(0, 10)}${flipped}${signature.slice(11)}`;
    await expectRefused(tokens.verify(`${header}.${payload}.${badSignature}`), 'AUTH_TOKEN_INVALID');
    await expectRefused(tokens.verify(`${header}.${payload}.`), 'AUTH_TOKEN_INVALID');
    expect(tokens.cachedCount).toBe(0);
  });

  it('refuses tokens of another secret, and tokens signed with the raw secret instead of the derived key', async () => {
    const other = new AccessTokens({ secret: OTHER_SECRET, clock: clock.now });
    await expectRefused(
      tokens.verify(await other.sign({ userId: 'user-1', amr: ['pwd'] })),
      'AUTH_TOKEN_INVALID',
    );
    const raw = await joseSigned({ alg: 'HS256', typ: 'at+jwt' }, standardClaims(), Buffer.from(SECRET));
    await expectRefused(tokens.verify(raw), 'AUTH_TOKEN_INVALID');
  });

  it('refuses a wrong or missing typ', async () => {
    for (const header of [{ alg: 'HS256', typ: 'JWT' }, { alg: 'HS256' }, { alg: 'HS256', typ: 'rt+jwt' }]) {
      await expectRefused(tokens.verify(await joseSigned(header, standardClaims())), 'AUTH_TOKEN_INVALID');
    }
    const longForm = await joseSigned({ alg: 'HS256', typ: 'application/at+jwt' }, standardClaims());
    expect((await tokens.verify(longForm)).userId).toBe('user-1');
  });

  it('refuses missing or malformed sub, amr, iat and exp', async () => {
    const { sub: _sub, ...noSub } = standardClaims();
    const { amr: _amr, ...noAmr } = standardClaims();
    const { iat: _iat, ...noIat } = standardClaims();
    const { exp: _exp, ...noExp } = standardClaims();
    const bad = [
      noSub,
      noAmr,
      noIat,
      noExp,
      { ...standardClaims(), sub: '' },
      { ...standardClaims(), sub: 42 },
      { ...standardClaims(), amr: 'pwd' },
      { ...standardClaims(), amr: ['PWD'] },
      { ...standardClaims(), amr: [1] },
      { ...standardClaims(), amr: Array.from({ length: 9 }, () => 'pwd') },
      { ...standardClaims(), exp: 'later' },
      { ...standardClaims(), exp: (T0 + FIFTEEN_MINUTES) / 1000 + 0.5 },
    ];
    for (const claims of bad) {
      const token = await joseSigned({ alg: 'HS256', typ: 'at+jwt' }, claims as jose.JWTPayload);
      await expectRefused(tokens.verify(token), 'AUTH_TOKEN_INVALID');
    }
  });

  it('refuses strings that are not JWTs, and tokens over 4096 characters before parsing them', async () => {
    for (const garbage of ['', 'abc', 'a.b.c', 'a.b', '...', 'Bearer x', `${b64url({ alg: 'HS256' })}.e30`]) {
      await expectRefused(tokens.verify(garbage), 'AUTH_TOKEN_INVALID');
    }
    await expectRefused(tokens.verify(42 as unknown as string), 'AUTH_TOKEN_INVALID');

    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    vi.mocked(jose.jwtVerify).mockClear();
    const padded = `${token}${'A'.repeat(MAX_ACCESS_TOKEN_LENGTH + 1 - token.length)}`;
    expect(padded).toHaveLength(4097);
    await expectRefused(tokens.verify(padded), 'AUTH_TOKEN_INVALID');
    expect(joseVerifications()).toBe(0);
  });

  it('answers AUTH_TOKEN_EXPIRED for a valid token at or past its exp', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    clock.set(T0 + FIFTEEN_MINUTES - 1);
    expect((await new AccessTokens({ secret: SECRET, clock: clock.now }).verify(token)).userId).toBe(
      'user-1',
    );
    clock.set(T0 + FIFTEEN_MINUTES);
    await expectRefused(tokens.verify(token), 'AUTH_TOKEN_EXPIRED');
    expect(tokens.cachedCount).toBe(0);
  });

  it('answers AUTH_TOKEN_INVALID, not EXPIRED, for an expired token that is invalid in any other way', async () => {
    const expired = { ...standardClaims(T0 - 2 * FIFTEEN_MINUTES) };
    const { amr: _amr, ...noAmr } = expired;
    await expectRefused(
      tokens.verify(await joseSigned({ alg: 'HS256', typ: 'at+jwt' }, expired)),
      'AUTH_TOKEN_EXPIRED',
    );
    await expectRefused(
      tokens.verify(await joseSigned({ alg: 'HS256', typ: 'at+jwt' }, noAmr)),
      'AUTH_TOKEN_INVALID',
    );
    for (const amr of [['PWD'], 'pwd']) {
      const badAmr = await joseSigned({ alg: 'HS256', typ: 'at+jwt' }, { ...expired, amr });
      await expectRefused(tokens.verify(badAmr), 'AUTH_TOKEN_INVALID');
    }
    await expectRefused(
      tokens.verify(await joseSigned({ alg: 'HS256', typ: 'JWT' }, expired)),
      'AUTH_TOKEN_INVALID',
    );
    const otherKey = accessKey(OTHER_SECRET);
    await expectRefused(
      tokens.verify(await joseSigned({ alg: 'HS256', typ: 'at+jwt' }, expired, otherKey)),
      'AUTH_TOKEN_INVALID',
    );
  });

  it('serves a token presented again from the cache, without running jose', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    for (let i = 0; i < 10_000; i++) await tokens.verify(token);
    expect(joseVerifications()).toBe(1);
    expect(tokens.cachedCount).toBe(1);
  });

  it('hands out copies, so a caller cannot change what the cache holds', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    const first = await tokens.verify(token);
    first.amr.push('mfa');
    first.userId = 'admin';
    expect(await tokens.verify(token)).toEqual({
      userId: 'user-1',
      amr: ['pwd'],
      expiresAt: T0 + FIFTEEN_MINUTES,
    });
  });

  it('answers AUTH_TOKEN_EXPIRED for a cached token once its exp passes, and drops it', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    await tokens.verify(token);
    clock.advance(FIFTEEN_MINUTES - 1);
    expect((await tokens.verify(token)).userId).toBe('user-1');
    clock.advance(1);
    await expectRefused(tokens.verify(token), 'AUTH_TOKEN_EXPIRED');
    expect(joseVerifications()).toBe(1);
    expect(tokens.cachedCount).toBe(0);
    await expectRefused(tokens.verify(token), 'AUTH_TOKEN_EXPIRED');
  });

  it('caches only successful verifications', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    const [header = '', , signature = ''] = token.split('.');
    const forged = `${header}.${b64url({ ...jose.decodeJwt(token), amr: ['pwd', 'mfa'] })}.${signature}`;
    for (let i = 0; i < 3; i++) await expectRefused(tokens.verify(forged), 'AUTH_TOKEN_INVALID');
    expect(joseVerifications()).toBe(3);
    expect(tokens.cachedCount).toBe(0);
  });

  it('keeps at most cacheSize tokens, evicting the oldest first', async () => {
    const small = new AccessTokens({ secret: SECRET, clock: clock.now, cacheSize: 3 });
    const issued = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((userId) => small.sign({ userId, amr: ['pwd'] })),
    );
    for (const token of issued) await small.verify(token);
    expect(small.cachedCount).toBe(3);
    expect(joseVerifications()).toBe(5);

    await small.verify(issued[4] ?? '');
    await small.verify(issued[2] ?? '');
    expect(joseVerifications()).toBe(5);
    await small.verify(issued[0] ?? '');
    expect(joseVerifications()).toBe(6);
    expect(small.cachedCount).toBe(3);
  });

  it('refuses other spellings of a cached token before the cache: no hit, no jose, no new entry', async () => {
    const token = await tokens.sign({ userId: 'user-1', amr: ['pwd'] });
    await tokens.verify(token);
    expect([joseVerifications(), tokens.cachedCount]).toEqual([1, 1]);
    const [header = '', payload = '', signature = ''] = token.split('.');
    const last = signature.at(-1) ?? '';
    const flipped = BASE64URL[BASE64URL.indexOf(last) ^ 1] ?? '';
    for (const spelling of [
      `${header}.${payload}.${signature.slice(0, 9)} ${signature.slice(9)}`,
      `${header}.${payload}.${signature.slice(0, -1)}${flipped}`,
      `${token}=`,
      `${token}==`,
      `${header}.${payload}.${signature}.`,
    ]) {
      // jose alone would take it: the signature decodes to the same bytes.
      await expectRefused(tokens.verify(spelling), 'AUTH_TOKEN_INVALID');
    }
    expect([joseVerifications(), tokens.cachedCount]).toEqual([1, 1]);
  });

  it('runs jose every time when cacheSize is 0', async () => {
    const uncached = new AccessTokens({ secret: SECRET, clock: clock.now, cacheSize: 0 });
    const token = await uncached.sign({ userId: 'user-1', amr: ['pwd'] });
    for (let i = 0; i < 5; i++) await uncached.verify(token);
    expect(joseVerifications()).toBe(5);
    expect(uncached.cachedCount).toBe(0);
  });

  it('refuses to sign a bad user id or amr, and refuses bad options', async () => {
    await expect(tokens.sign({ userId: '', amr: ['pwd'] })).rejects.toThrow(TypeError);
    await expect(tokens.sign({ userId: 'u', amr: ['PWD'] })).rejects.toThrow(TypeError);
    await expect(tokens.sign({ userId: 'u', amr: Array.from({ length: 9 }, () => 'pwd') })).rejects.toThrow(
      TypeError,
    );
    expect(() => new AccessTokens({ secret: SECRET, ttlMs: 999 })).toThrow(TypeError);
    expect(() => new AccessTokens({ secret: SECRET, cacheSize: -1 })).toThrow(TypeError);
    expect(() => new AccessTokens({ secret: SECRET, cacheSize: 1.5 })).toThrow(TypeError);
    expect(() => new AccessTokens({ secret: SECRET, issuer: '' })).toThrow(TypeError);
  });
});

describe('isCanonicalCompactJws', () => {
  it('accepts three segments of unpadded base64url whose last characters carry no unused bits', () => {
    for (const token of ['eyJh.eyJi.c2ln', 'AA.AQ.AAE', 'A-_w.AAAA.Zm9vYg', 'Zg.Zm8.Zm9v']) {
      expect(isCanonicalCompactJws(token), token).toBe(true);
    }
  });

  it('refuses another alphabet, padding, a length of 1 mod 4, set unused bits and a wrong segment count', () => {
    for (const token of [
      '',
      'eyJh.eyJi',
      'eyJh.eyJi.c2ln.eA',
      'eyJh.eyJi.',
      '.eyJi.c2ln',
      'eyJh.eyJi.c2 ln',
      'eyJh.eyJi.c2+n',
      'eyJh.eyJi.c2/n',
      'eyJh.eyJi.c2ln=',
      'Zg==.Zm8.Zm9v',
      'eyJh.eyJi.c2lnA',
      'Zh.Zm8.Zm9v',
      'Zg.Zm9.Zm9v',
      'eyJh.eyJi.c2l\u00e9',
      'eyJh.eyJi.c2l\u0000',
    ]) {
      expect(isCanonicalCompactJws(token), token).toBe(false);
    }
  });
});

describe('SessionIds', () => {
  const sessions = new SessionIds({ secret: SECRET });

  it('round-trips the amr, empty included', () => {
    for (const amr of [
      ['pwd'],
      ['pwd', 'mfa'],
      ['fed', 'google_oidc'],
      [],
      Array.from({ length: 8 }, () => 'x'),
    ]) {
      const id = sessions.create(amr);
      expect(sessions.parse(id)).toEqual({ amr });
    }
  });

  it('writes <random>.<amr>.<mac> in characters safe unencoded in a cookie and a header', () => {
    const id = sessions.create(['pwd', 'mfa']);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}\.pwd-mfa\.[A-Za-z0-9_-]{43}$/);
    expect(id).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(encodeURIComponent(id)).toBe(id);
    const longest = sessions.create(Array.from({ length: 8 }, () => 'x'.repeat(16)));
    expect(longest.length).toBeLessThanOrEqual(MAX_SESSION_ID_LENGTH);
    expect(sessions.parse(longest)).toBeDefined();
    expect(sessions.create(['pwd'])).not.toBe(sessions.create(['pwd']));
  });

  it('refuses an id whose amr was changed, keeping the MAC', () => {
    const [random, , mac] = sessions.create(['pwd']).split('.');
    expect(sessions.parse(`${random}.pwd-mfa.${mac}`)).toBeUndefined();
    expect(sessions.parse(`${random}.mfa.${mac}`)).toBeUndefined();
    expect(sessions.parse(`${random}..${mac}`)).toBeUndefined();
  });

  it('refuses ids of another secret, and a MAC made with the access-token key', () => {
    const other = new SessionIds({ secret: OTHER_SECRET });
    expect(sessions.parse(other.create(['pwd']))).toBeUndefined();
    const signed = `${newOpaqueToken()}.pwd`;
    expect(sessions.parse(`${signed}.${hmac256(accessKey(), signed)}`)).toBeUndefined();
    expect(sessions.parse(`${signed}.${hmac256(deriveKey(SECRET, KEY_PURPOSES.sessionId), signed)}`)).toEqual(
      {
        amr: ['pwd'],
      },
    );
  });

  it('refuses empty, malformed and over-long ids', () => {
    const id = sessions.create(['pwd']);
    const [random = '', , mac = ''] = id.split('.');
    const malformed = [
      '',
      'abc',
      newOpaqueToken(),
      `${random}.pwd`,
      `${random}.pwd.${mac}.x`,
      `${id} `,
      ` ${id}`,
      `${random.slice(1)}.pwd.${mac}`,
      `${random}.pwd.${mac.slice(1)}`,
      `${random}.PWD.${mac}`,
      `${random}.pwd--mfa.${mac}`,
      `${random}.pwd.${mac}=`,
      `${random}.${'x'.repeat(300)}.${mac}`,
    ];
    for (const value of malformed) expect(sessions.parse(value)).toBeUndefined();
    expect(sessions.parse(`${id}${'A'.repeat(MAX_SESSION_ID_LENGTH + 1 - id.length)}`)).toBeUndefined();
    expect(sessions.parse(undefined as unknown as string)).toBeUndefined();
  });

  it('refuses to create ids with an amr it would not accept back (TypeError)', () => {
    for (const amr of [
      ['PWD'],
      ['pwd-mfa'],
      ['a.b'],
      [''],
      ['x'.repeat(17)],
      Array.from({ length: 9 }, () => 'x'),
    ]) {
      expect(() => sessions.create(amr)).toThrow(TypeError);
    }
  });

  it('accepts one spelling per id: unused MAC bits, padding or another spelling of the random part fail', () => {
    const id = sessions.create(['pwd']);
    const [random = '', , mac = ''] = id.split('.');
    const flip = (part: string) =>
      `${part.slice(0, -1)}${BASE64URL[BASE64URL.indexOf(part.at(-1) ?? '') ^ 1]}`;
    expect(Buffer.from(flip(mac), 'base64url')).toEqual(Buffer.from(mac, 'base64url'));
    for (const spelling of [`${random}.pwd.${flip(mac)}`, `${flip(random)}.pwd.${mac}`, `${id}=`]) {
      expect(sessions.parse(spelling), spelling).toBeUndefined();
    }
  });

  it('is stored under the hash of the whole id', () => {
    const id = sessions.create(['pwd']);
    expect(sessionIdHash(id)).toBe(hashToken(id));
    expect(sessionIdHash(id)).not.toBe(hashToken(id.split('.')[0] ?? ''));
  });
});
