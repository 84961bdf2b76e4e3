// The MFA secret box: TOTP secrets sealed as `bka2.<keyId>.<payload>` (AES-256-GCM, HKDF key, the user id as
// associated data) under a rotating key ring, legacy `v1:` and plaintext rows read only when opted in, the
// SVC_MFA_KEYS parser, and golden vectors that pin the stored format.
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseMfaKeys } from '../../runtime/auth/mfa/keys.js';
import {
  SecretBox,
  sealV1ForTesting,
  sealWithIvForTesting,
  type SecretBoxOptions,
} from '../../runtime/auth/mfa/secret-box.js';
import { BootError, HttpError } from '../../runtime/http/errors.js';

interface Vectors {
  bka2: {
    keys: { id: string; material: string }[];
    vectors: { keyId: string; userId: string; plaintext: string; iv: string; envelope: string }[];
  };
  v1: { vectors: { material: string; plaintext: string; iv: string; envelope: string }[] };
}

const VECTORS = JSON.parse(
  readFileSync(new URL('../fixtures/mfa/bka2-vectors.json', import.meta.url), 'utf8'),
) as Vectors;

const K1 = Buffer.alloc(32, 0x11);
const K2 = Buffer.alloc(40, 0x22);
const V1_KEY = Buffer.from('old v1 key material', 'utf8');
const SECRET = 'JBSWY3DPEHPK3PXP';
const ALICE = 'user-alice';
const BOB = 'user-bob';

const oldBox = new SecretBox({ keys: [{ id: 'k1', material: K1 }] });
const rotatedBox = new SecretBox({
  keys: [
    { id: 'k2', material: K2 },
    { id: 'k1', material: K1 },
  ],
});
const legacyBox = new SecretBox({
  keys: [{ id: 'k1', material: K1 }],
  legacy: { v1Keys: [V1_KEY], plaintext: true },
});

/** The error `run` throws (fails the test when it throws nothing). */
function thrown(run: () => unknown): Error & { code?: string; internalDetails?: unknown; hint?: string } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a throw');
}

/** Everything an error carries that could reach a log: message, stack, details, internal details, hint. */
function everythingIn(error: Error & { internalDetails?: unknown; hint?: string }): string {
  return `${inspect(error, { depth: 5 })} ${error.stack ?? ''} ${JSON.stringify(error.internalDetails)} ${error.hint ?? ''}`;
}

function expectUnreadable(run: () => unknown, ...secrets: string[]): void {
  const error = thrown(run);
  expect(error).toBeInstanceOf(HttpError);
  expect(error.code).toBe('AUTH_SECRET_UNREADABLE');
  for (const secret of secrets) expect(everythingIn(error)).not.toContain(secret);
}

function expectKeyInvalid(run: () => unknown, ...secrets: string[]): string {
  const error = thrown(run);
  expect(error).toBeInstanceOf(BootError);
  expect(error.code).toBe('AUTH_SECRET_BOX_KEY_INVALID');
  for (const secret of secrets) expect(everythingIn(error)).not.toContain(secret);
  return error.message;
}

describe('golden vectors (test/fixtures/mfa/bka2-vectors.json)', () => {
  const ring = VECTORS.bka2.keys.map((key) => ({
    id: key.id,
    material: Buffer.from(key.material, 'base64'),
  }));

  it('opens every bka2 vector with a ring holding all the vector keys', () => {
    const box = new SecretBox({ keys: ring });
    expect(VECTORS.bka2.vectors.length).toBeGreaterThanOrEqual(4);
    for (const vector of VECTORS.bka2.vectors)
      expect(box.open(vector.userId, vector.envelope)).toBe(vector.plaintext);
  });

  it('re-seals every bka2 vector with its iv to the exact same string', () => {
    for (const vector of VECTORS.bka2.vectors) {
      const key = ring.find((candidate) => candidate.id === vector.keyId);
      const box = new SecretBox({ keys: [key as (typeof ring)[number]] });
      const iv = Buffer.from(vector.iv, 'hex');
      expect(sealWithIvForTesting(box, vector.userId, vector.plaintext, iv)).toBe(vector.envelope);
    }
  });

  it('follows the documented layout: HKDF key, iv ‖ ciphertext ‖ tag, user id as AAD', () => {
    for (const vector of VECTORS.bka2.vectors) {
      const [prefix, keyId, payload] = vector.envelope.split('.') as [string, string, string];
      expect([prefix, keyId]).toEqual(['bka2', vector.keyId]);
      const material = ring.find((key) => key.id === keyId)?.material as Buffer;
      const key = Buffer.from(
        hkdfSync('sha256', material, 'svckit mfa secret box', 'svc mfa secret bka2', 32),
      );
      const bytes = Buffer.from(payload, 'base64url');
      expect(bytes.subarray(0, 12).toString('hex')).toBe(vector.iv);
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(vector.userId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      const plaintext = Buffer.concat([
        decipher.update(bytes.subarray(12, bytes.length - 16)),
        decipher.final(),
      ]);
      expect(plaintext.toString('utf8')).toBe(vector.plaintext);
    }
  });

  it('opens the v1 vectors with legacy v1 keys and re-seals them to the same string', () => {
    for (const vector of VECTORS.v1.vectors) {
      const material = Buffer.from(vector.material, 'base64');
      const box = new SecretBox({ keys: [{ id: 'k1', material: K1 }], legacy: { v1Keys: [material] } });
      expect(box.open('any user', vector.envelope)).toBe(vector.plaintext);
      expect(sealV1ForTesting(material, vector.plaintext, Buffer.from(vector.iv, 'hex'))).toBe(
        vector.envelope,
      );
    }
  });
});

describe('seal and open', () => {
  it('round-trips a secret, with a fresh iv every time', () => {
    const first = oldBox.seal(ALICE, SECRET);
    const second = oldBox.seal(ALICE, SECRET);
    expect(first).toMatch(/^bka2\.k1\.[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain(SECRET);
    expect(oldBox.open(ALICE, first)).toBe(SECRET);
    expect(oldBox.open(ALICE, second)).toBe(SECRET);
    expect(oldBox.open(ALICE, oldBox.seal(ALICE, 'ünïcödé ✓'))).toBe('ünïcödé ✓');
  });

  it('refuses a value sealed for another user', () => {
    const sealed = oldBox.seal(ALICE, SECRET);
    expectUnreadable(() => oldBox.open(BOB, sealed), SECRET, sealed);
    expectUnreadable(() => oldBox.open('', sealed));
  });

  it('refuses a value with any character or any payload byte changed, or cut, or extended', () => {
    const sealed = legacyBox.seal(ALICE, SECRET);
    // With every legacy form enabled, so no alteration can pass as a v1 or plaintext value either.
    for (let index = 0; index < sealed.length; index++) {
      const replacement = sealed[index] === 'A' ? 'B' : 'A';
      expectUnreadable(() =>
        legacyBox.open(ALICE, sealed.slice(0, index) + replacement + sealed.slice(index + 1)),
      );
    }
    const prefix = 'bka2.k1.';
    const payload = Buffer.from(sealed.slice(prefix.length), 'base64url');
    for (let index = 0; index < payload.length; index++) {
      const altered = Buffer.from(payload);
      altered[index] = (altered[index] as number) ^ 0x01;
      expectUnreadable(() => legacyBox.open(ALICE, prefix + altered.toString('base64url')));
    }
    for (const value of [
      sealed.slice(0, -1),
      `${sealed}A`,
      `${sealed}.`,
      prefix,
      `${prefix}AAAA`,
      'bka2.k1',
      '',
    ]) {
      expectUnreadable(() => legacyBox.open(ALICE, value));
    }
  });

  it('refuses an envelope under a key id the ring does not hold', () => {
    const sealed = rotatedBox.seal(ALICE, SECRET);
    const error = thrown(() => oldBox.open(ALICE, sealed));
    expect(error.code).toBe('AUTH_SECRET_UNREADABLE');
    expect(error.internalDetails).toEqual({ reason: 'unknown key id', keyId: 'k2' });
    // Renaming the id to one the ring holds does not help: the key differs.
    expectUnreadable(() => oldBox.open(ALICE, sealed.replace('bka2.k2.', 'bka2.k1.')));
  });

  it('refuses a seal without a user id or a secret, and an iv of the wrong size', () => {
    expect(thrown(() => oldBox.seal('', SECRET)).code).toBe('OPTION_INVALID');
    expect(thrown(() => oldBox.seal(ALICE, '')).code).toBe('OPTION_INVALID');
    expect(thrown(() => sealWithIvForTesting(oldBox, ALICE, SECRET, Buffer.alloc(16))).code).toBe(
      'OPTION_INVALID',
    );
  });
});

describe('key rotation', () => {
  it('seals with the first key, opens old envelopes with the others, and flags them for resealing', () => {
    const old = oldBox.seal(ALICE, SECRET);
    expect(rotatedBox.sealingKeyId).toBe('k2');
    expect(rotatedBox.open(ALICE, old)).toBe(SECRET);
    expect(rotatedBox.needsReseal(old)).toBe(true);

    const resealed = rotatedBox.seal(ALICE, rotatedBox.open(ALICE, old));
    expect(resealed.startsWith('bka2.k2.')).toBe(true);
    expect(rotatedBox.needsReseal(resealed)).toBe(false);
    expect(rotatedBox.open(ALICE, resealed)).toBe(SECRET);
    expect(oldBox.needsReseal(old)).toBe(false);
  });

  it('says a legacy or malformed value needs resealing, whatever the legacy options', () => {
    for (const value of [
      sealV1ForTesting(V1_KEY, SECRET, Buffer.alloc(12)),
      SECRET,
      'bka2.k1',
      'bka3.k1.AAAA',
    ]) {
      expect(oldBox.needsReseal(value)).toBe(true);
      expect(legacyBox.needsReseal(value)).toBe(true);
    }
  });
});

describe('legacy values', () => {
  const v1 = sealV1ForTesting(V1_KEY, SECRET, Buffer.alloc(12, 7));

  it('refuses v1 envelopes and plaintext secrets without the legacy option', () => {
    expectUnreadable(() => oldBox.open(ALICE, v1), SECRET);
    expectUnreadable(() => oldBox.open(ALICE, SECRET), SECRET);
  });

  it('reads them with it, each part enabled on its own', () => {
    expect(legacyBox.open(ALICE, v1)).toBe(SECRET);
    expect(legacyBox.open(ALICE, SECRET)).toBe(SECRET);
    expect(legacyBox.open(ALICE, 'gezdgnbvgy3tqojq====')).toBe('gezdgnbvgy3tqojq====');

    const v1Only = new SecretBox({
      keys: [{ id: 'k1', material: K1 }],
      legacy: { v1Keys: [Buffer.from('other'), V1_KEY] },
    });
    expect(v1Only.open(ALICE, v1)).toBe(SECRET);
    expectUnreadable(() => v1Only.open(ALICE, SECRET), SECRET);

    const plaintextOnly = new SecretBox({ keys: [{ id: 'k1', material: K1 }], legacy: { plaintext: true } });
    expect(plaintextOnly.open(ALICE, SECRET)).toBe(SECRET);
    expectUnreadable(() => plaintextOnly.open(ALICE, v1), SECRET);
  });

  it('refuses a v1 envelope under no v1 key, and a "plaintext" that is no base32 secret', () => {
    const other = new SecretBox({
      keys: [{ id: 'k1', material: K1 }],
      legacy: { v1Keys: [Buffer.from('another v1 key')] },
    });
    expectUnreadable(() => other.open(ALICE, v1), SECRET);
    for (const value of ['bka3.k1.AAAAAAAA', 'not base32!', 'JBSW Y3DP', 'JBSWY3DP1']) {
      expectUnreadable(() => legacyBox.open(ALICE, value));
    }
  });
});

describe('parseMfaKeys (SVC_MFA_KEYS)', () => {
  const k1Text = K1.toString('base64');
  const k2Text = K2.toString('base64url').replace(/=+$/, '');

  it('reads `<id>:<base64>` entries in order, base64 or base64url, spaces around entries ignored', () => {
    const keys = parseMfaKeys(` k2:${k2Text} ,k1:${k1Text}`);
    expect(keys).toEqual([
      { id: 'k2', material: K2 },
      { id: 'k1', material: K1 },
    ]);
    const box = new SecretBox({ keys });
    expect(box.open(ALICE, oldBox.seal(ALICE, SECRET))).toBe(SECRET);
  });

  it('refuses an empty or unset value', () => {
    expect(expectKeyInvalid(() => parseMfaKeys(''))).toContain('SVC_MFA_KEYS is empty');
    expectKeyInvalid(() => parseMfaKeys('   '));
    expectKeyInvalid(() => parseMfaKeys(undefined));
  });

  it('refuses an entry without ":", an empty entry, a bad or repeated id, bad or short material', () => {
    const short = Buffer.alloc(31, 9).toString('base64');
    const cases: [string, string, string][] = [
      [k1Text, 'no ":"', k1Text],
      [`k1:${k1Text},`, 'key 2 is empty', k1Text],
      [`:${k1Text}`, 'key id must be', k1Text],
      [`k 1:${k1Text}`, 'key id must be', k1Text],
      [`k.1:${k1Text}`, 'key id must be', k1Text],
      [`${'a'.repeat(33)}:${k1Text}`, 'key id must be', k1Text],
      [`${k1Text}:k1`, 'key id must be', k1Text.slice(0, 20)],
      [`k1:${k1Text},k1:${k2Text}`, '"k1" is used twice', k2Text],
      [`k1:${k1Text.slice(0, -2)}$$`, 'not valid base64', k1Text.slice(0, 20)],
      [`k1:${k1Text}=`, 'not valid base64', k1Text.slice(0, 20)],
      ['k1:', 'not valid base64', k1Text],
      [`k1:${short}`, '31 bytes; at least 32', short],
    ];
    for (const [text, expected, secret] of cases) {
      expect(expectKeyInvalid(() => parseMfaKeys(text), secret)).toContain(expected);
    }
  });
});

describe('new SecretBox(options)', () => {
  it('refuses the same key rings given in code', () => {
    const cases: [unknown, string][] = [
      [[], 'non-empty list'],
      [undefined, 'non-empty list'],
      [[{ id: 'bad id', material: K1 }], 'key id must be'],
      [
        [
          { id: 'k1', material: K1 },
          { id: 'k1', material: K2 },
        ],
        '"k1" is used twice',
      ],
      [[{ id: 'k1', material: Buffer.alloc(16, 1) }], '16 bytes; at least 32'],
      [[{ id: 'k1', material: K1.toString('base64') }], 'must be a Buffer'],
      [[null], 'must be an object'],
    ];
    for (const [keys, expected] of cases) {
      const message = expectKeyInvalid(
        () => new SecretBox({ keys } as SecretBoxOptions),
        K1.toString('base64'),
      );
      expect(message).toContain(expected);
    }
  });

  it('refuses unknown and ill-typed options', () => {
    const keys = [{ id: 'k1', material: K1 }];
    const box = (options: unknown) => () => new SecretBox(options as SecretBoxOptions);
    expect(thrown(box({ keys, legacyy: {} })).code).toBe('OPTION_UNKNOWN');
    expect(thrown(box({ keys, legacy: { plainText: true } })).code).toBe('OPTION_UNKNOWN');
    expect(thrown(box({ keys: [{ id: 'k1', material: K1, purpose: 'x' }] })).code).toBe('OPTION_UNKNOWN');
    expect(thrown(box(undefined)).code).toBe('OPTION_INVALID');
    expect(thrown(box({ keys, legacy: true })).code).toBe('OPTION_INVALID');
    expect(thrown(box({ keys, legacy: { plaintext: 'yes' } })).code).toBe('OPTION_INVALID');
    expect(thrown(box({ keys, legacy: { v1Keys: V1_KEY } })).code).toBe('OPTION_INVALID');
    expect(thrown(box({ keys, legacy: { v1Keys: ['text key'] } })).code).toBe('AUTH_SECRET_BOX_KEY_INVALID');
    expect(thrown(box({ keys, legacy: { v1Keys: [Buffer.alloc(0)] } })).code).toBe(
      'AUTH_SECRET_BOX_KEY_INVALID',
    );
  });

  it('keeps its own copy of the keys, and shows none of them when inspected', () => {
    const material = Buffer.from(K1);
    const box = new SecretBox({ keys: [{ id: 'k1', material }] });
    material.fill(0);
    expect(box.open(ALICE, oldBox.seal(ALICE, SECRET))).toBe(SECRET);
    const shown = `${inspect(box, { depth: 5, showHidden: true })} ${JSON.stringify(box)}`;
    expect(shown).not.toContain(K1.toString('hex').slice(0, 16));
    expect(shown).not.toContain('0x11');
    expect(shown).not.toMatch(/<Buffer/);
  });
});
