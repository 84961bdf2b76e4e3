// The UserSource contract as a reusable suite: every backend (memory now; SQL with
// the stores issue) runs it. `makeSource` gives a fresh, empty source per test; `seed`, when the backend can
// hold rows svc would never write (emails differing only in case), gives a source holding exactly `users`.
import { describe, expect, it } from 'vitest';
import { HttpError, type AuthUser, type UserSource } from 'svckit';
import { rejectionOf } from './rejection.js';

type Factory<T> = () => Promise<T> | T;

async function expectCode(action: Promise<unknown>, code: string, status: number): Promise<void> {
  const error = await rejectionOf(action);
  expect(error.code).toBe(code);
  expect(error.status).toBe(status);
}

export function userSourceContract(
  name: string,
  makeSource: Factory<UserSource>,
  seed?: (users: AuthUser[]) => Promise<UserSource> | UserSource,
): void {
  describe(`UserSource contract: ${name}`, () => {
    it('creates a user with the normalised email and finds it by id and by email ignoring case', async () => {
      const source = await makeSource();
      const created = await source.create({ email: '  Alice@Example.COM ', passwordHash: 'hash-a' });
      expect(created).toEqual({
        id: expect.any(String),
        email: 'alice@example.com',
        passwordHash: 'hash-a',
        emailVerified: false,
      });
      expect(await source.findById(created.id)).toEqual(created);
      expect(await source.findByEmail('alice@example.com')).toEqual(created);
      expect(await source.findByEmail(' ALICE@example.com')).toEqual(created);
      expect(await source.findByEmail('bob@example.com')).toBeNull();
      expect(await source.findById('no-such-id')).toBeNull();
    });

    it('creates passwordless and pre-verified users, each with its own id', async () => {
      const source = await makeSource();
      const social = await source.create({ email: 'social@example.com', emailVerified: true });
      expect(social.passwordHash).toBeUndefined();
      expect(social.emailVerified).toBe(true);
      const other = await source.create({ email: 'other@example.com', passwordHash: 'h' });
      expect(other.id).not.toBe(social.id);
      expect((await source.findById(social.id))?.passwordHash).toBeUndefined();
    });

    it('refuses an email taken ignoring case with AUTH_EMAIL_TAKEN (409) and keeps the first user', async () => {
      const source = await makeSource();
      const first = await source.create({ email: 'alice@example.com', passwordHash: 'first' });
      await expectCode(
        source.create({ email: ' ALICE@example.com', passwordHash: 'second' }),
        'AUTH_EMAIL_TAKEN',
        409,
      );
      expect(await source.findByEmail('alice@example.com')).toEqual(first);
    });

    it('of 20 concurrent sign-ups of one address in different cases, exactly one succeeds', async () => {
      const source = await makeSource();
      const address = 'race@example.com';
      // Each sign-up upper-cases a different letter.
      const emails = Array.from({ length: 20 }, (_, index) => {
        const at = index % address.length;
        return address.slice(0, at) + address.charAt(at).toUpperCase() + address.slice(at + 1);
      });
      const outcomes = await Promise.allSettled(
        emails.map((email) => source.create({ email, passwordHash: 'h' })),
      );
      const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(created).toHaveLength(1);
      expect(refused).toHaveLength(19);
      for (const reason of refused) {
        expect(reason).toBeInstanceOf(HttpError);
        expect((reason as HttpError).code).toBe('AUTH_EMAIL_TAKEN');
        expect((reason as HttpError).status).toBe(409);
      }
      expect((await source.findByEmail('race@example.com'))?.id).toBe(created[0]?.value.id);
    });

    it('update applies only the given fields, normalises a new email, and answers null for an unknown id', async (context) => {
      const source = await makeSource();
      if (source.update === undefined) return context.skip('the source has no update');
      const user = await source.create({ email: 'alice@example.com', passwordHash: 'old' });
      expect(await source.update(user.id, { emailVerified: true })).toEqual({ ...user, emailVerified: true });
      expect(await source.update(user.id, { passwordHash: 'new' })).toEqual({
        ...user,
        emailVerified: true,
        passwordHash: 'new',
      });
      const moved = await source.update(user.id, { email: ' Alice.New@Example.com ' });
      expect(moved).toEqual({
        id: user.id,
        email: 'alice.new@example.com',
        passwordHash: 'new',
        emailVerified: true,
      });
      expect(await source.findById(user.id)).toEqual(moved);
      expect(await source.findByEmail('ALICE.NEW@example.com')).toEqual(moved);
      expect(await source.findByEmail('alice@example.com')).toBeNull();
      // The old address is free again.
      expect((await source.create({ email: 'alice@example.com' })).id).not.toBe(user.id);
      expect(await source.update('no-such-id', { emailVerified: true })).toBeNull();
      expect(await source.findById('no-such-id')).toBeNull();
    });

    it("update refuses another user's email (ignoring case) with AUTH_EMAIL_TAKEN and changes nothing", async (context) => {
      const source = await makeSource();
      if (source.update === undefined) return context.skip('the source has no update');
      const alice = await source.create({ email: 'alice@example.com', passwordHash: 'a' });
      const bob = await source.create({ email: 'bob@example.com', passwordHash: 'b' });
      await expectCode(
        source.update(bob.id, { email: 'ALICE@example.com', emailVerified: true }),
        'AUTH_EMAIL_TAKEN',
        409,
      );
      expect(await source.findById(bob.id)).toEqual(bob);
      expect(await source.findByEmail('alice@example.com')).toEqual(alice);
      // A user may re-save their own address, in any case.
      expect(await source.update(alice.id, { email: 'Alice@Example.com' })).toEqual(alice);
    });

    it('findByIds answers public users in the order of ids, unknown omitted, duplicates collapsed, no hash', async (context) => {
      const source = await makeSource();
      if (source.findByIds === undefined) return context.skip('the source has no findByIds');
      const alice = await source.create({ email: 'alice@example.com', passwordHash: 'a' });
      const bob = await source.create({ email: 'bob@example.com', passwordHash: 'b', emailVerified: true });
      const found = await source.findByIds([bob.id, 'unknown', alice.id, bob.id, alice.id]);
      expect(found).toStrictEqual([
        { id: bob.id, email: 'bob@example.com', emailVerified: true },
        { id: alice.id, email: 'alice@example.com', emailVerified: false },
      ]);
      for (const user of found) expect(user).not.toHaveProperty('passwordHash');
      expect(await source.findByIds(['unknown'])).toEqual([]);
      expect(await source.findByIds([])).toEqual([]);
    });

    const ambiguity =
      'rows differing only in email case make the identity ambiguous: AUTH_EMAIL_AMBIGUOUS (500)';
    if (seed === undefined) it.skip(`${ambiguity} (needs seed)`, () => undefined);
    else
      it(ambiguity, async () => {
        const source = await seed([
          { id: 'u1', email: 'Alice@Example.com', passwordHash: 'h1', emailVerified: false },
          { id: 'u2', email: 'alice@example.com', passwordHash: 'h2', emailVerified: true },
          { id: 'u3', email: 'Carol@Example.com', emailVerified: false },
        ]);
        await expectCode(source.findByEmail('alice@example.com'), 'AUTH_EMAIL_AMBIGUOUS', 500);
        await expectCode(source.findByEmail(' ALICE@EXAMPLE.COM'), 'AUTH_EMAIL_AMBIGUOUS', 500);
        // The address stays taken; the rows stay reachable by id; a single mixed-case row matches.
        await expectCode(source.create({ email: 'alice@example.com' }), 'AUTH_EMAIL_TAKEN', 409);
        expect((await source.findById('u2'))?.passwordHash).toBe('h2');
        expect((await source.findByEmail('carol@example.com'))?.id).toBe('u3');
      });
  });
}
