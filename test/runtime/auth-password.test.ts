// Password hashes: scrypt in a PHC string that carries its parameters,
// verified in constant time, off the event loop; a stored hash declaring too much work never verifies and
// costs nothing to refuse.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PASSWORD_HASH_PARAMS,
  hashPassword,
  passwordHashNeedsUpgrade,
  verifyPassword,
  type PasswordHashParams,
} from 'svckit';

/** Cheap parameters, so the suite does not spend its time hashing. */
const FAST: PasswordHashParams = { ln: 10, r: 4, p: 2 };
const SALT = 'c2FsdHNhbHRzYWx0c2FsdA';
const HASH = 'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';

describe('hashPassword / verifyPassword', () => {
  it('writes a PHC scrypt string with the default parameters, and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts every hash, and keeps the parameters a hash was made with', async () => {
    const [one, two] = await Promise.all([hashPassword('same', FAST), hashPassword('same', FAST)]);
    expect(one).not.toBe(two);
    expect(one.startsWith('$scrypt$ln=10,r=4,p=2$')).toBe(true);
    expect(await verifyPassword('same', one)).toBe(true);
    expect(await verifyPassword('same', two)).toBe(true);
  });

  it('treats the composed and decomposed spellings of an accented password as one (NFC)', async () => {
    const stored = await hashPassword('caf\u00e9', FAST);
    expect(await verifyPassword('cafe\u0301', stored)).toBe(true);
  });

  it('never verifies a stored value that is not an svc scrypt hash', async () => {
    const good = await hashPassword('pw', FAST);
    const [, , params = '', salt = '', hash = ''] = good.split('$');
    const malformed = [
      '',
      'pw',
      '$2b$10$abcdefghijklmnopqrstuuJ0PJzP4pD8mFQKXBsQ6fxhBBUJ4ybIq',
      `$scrypt$${params}$${salt}`,
      `$scrypt$${params}$${salt}$${hash}$extra`,
      `$scrypt$ln=10,r=4$${salt}$${hash}`,
      `$scrypt$ln=010,r=4,p=2$${salt}$${hash}`,
      `$scrypt$ln=10,r=4,p=2$${salt}$${hash}=`,
      `$scrypt$ln=10,r=4,p=2$c2FsdA$${hash}`, // a 4-byte salt
      `$scrypt$ln=10,r=4,p=2$${salt}$${'A'.repeat(200)}`, // a 150-byte hash
      `$argon2id$v=19$m=65536,t=3,p=4$${salt}$${hash}`,
    ];
    for (const stored of malformed) expect(await verifyPassword('pw', stored), stored).toBe(false);
    expect(await verifyPassword(42 as never, good)).toBe(false);
  });

  it('refuses, at once and without hashing, a stored hash declaring more work than the limits', async () => {
    const tooMuch = [
      `$scrypt$ln=21,r=1,p=1$${SALT}$${HASH}`, // N above 2^20
      `$scrypt$ln=10,r=33,p=1$${SALT}$${HASH}`, // r above 32
      `$scrypt$ln=10,r=1,p=17$${SALT}$${HASH}`, // p above 16
      `$scrypt$ln=20,r=8,p=1$${SALT}$${HASH}`, // 1 GiB of memory
      `$scrypt$ln=99,r=99,p=99$${SALT}$${HASH}`,
    ];
    for (const stored of tooMuch) {
      // Decided before the event loop turns once: scrypt's answer could only arrive on a later turn.
      const nextTurn = new Promise((resolve) => setImmediate(() => resolve('hashed')));
      expect(await Promise.race([verifyPassword('pw', stored), nextTurn]), stored).toBe(false);
    }
  });

  it('refuses to make a hash with parameters outside the limits', async () => {
    for (const params of [
      { ln: 0, r: 8, p: 1 },
      { ln: 21, r: 8, p: 1 },
      { ln: 15, r: 8.5, p: 1 },
      { ln: 20, r: 8, p: 1 },
    ]) {
      await expect(hashPassword('pw', params), JSON.stringify(params)).rejects.toThrow(TypeError);
    }
    await expect(hashPassword(undefined as never)).rejects.toThrow(TypeError);
  });

  it('hashes off the event loop: the loop keeps turning while hashes are computed', async () => {
    let turns = 0;
    let hashing = true;
    const turn = () => {
      turns++;
      if (hashing) setImmediate(turn);
    };
    setImmediate(turn);
    await Promise.all([hashPassword('a'), hashPassword('b'), hashPassword('c'), hashPassword('d')]);
    hashing = false;
    // Hashing on the loop would finish before any turn; in the thread pool, the answers come turns later.
    expect(turns).toBeGreaterThan(2);
  });
});

describe('passwordHashNeedsUpgrade', () => {
  it('is true for other parameters or a foreign hash, false for the current ones', async () => {
    expect(passwordHashNeedsUpgrade(await hashPassword('pw', FAST))).toBe(true);
    expect(passwordHashNeedsUpgrade(await hashPassword('pw', FAST), FAST)).toBe(false);
    expect(passwordHashNeedsUpgrade(await hashPassword('pw'))).toBe(false);
    expect(passwordHashNeedsUpgrade('$2b$10$whatever')).toBe(true);
    expect(DEFAULT_PASSWORD_HASH_PARAMS).toEqual({ ln: 15, r: 8, p: 1 });
  });
});
