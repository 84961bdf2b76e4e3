// The IdempotencyStore contract as a reusable
// suite: memory, SQL and Redis run it. `makeStore({ now, ttlMs })` gives a fresh, empty store keeping keys
// `ttlMs` and reading time from `now`, so the suite moves time by hand.
import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from 'svckit';
import { fakeClock } from './fake-clock.js';

const T0 = 1_700_000_000_000;
const TTL = 60_000;
const RECORD = { status: 201, body: '{"id":1,"note":"é ✓"}', contentType: 'application/json; charset=utf-8' };

type Factory = (options: {
  now: () => number;
  ttlMs: number;
}) => Promise<IdempotencyStore> | IdempotencyStore;

export function idempotencyStoreContract(name: string, makeStore: Factory): void {
  describe(`IdempotencyStore contract: ${name}`, () => {
    const fresh = async () => {
      const clock = fakeClock(T0);
      return { clock, store: await makeStore({ now: clock.now, ttlMs: TTL }) };
    };

    it('moves a key from free to pending to completed, and reserves it only once', async () => {
      const { store } = await fresh();
      expect(await store.get('k')).toBeUndefined();
      expect(await store.setPending('k')).toBe(true);
      expect(await store.setPending('k')).toBe(false);
      expect(await store.get('k')).toBe('pending');
      await store.complete('k', RECORD);
      expect(await store.get('k')).toEqual(RECORD);
      expect(await store.setPending('k')).toBe(false);
      expect(await store.get('other')).toBeUndefined();
    });

    it('keeps the fingerprint of the request that made the record', async () => {
      const { store } = await fresh();
      const fingerprint = 'a'.repeat(64);
      await store.setPending('k');
      await store.complete('k', { ...RECORD, fingerprint });
      expect(await store.get('k')).toEqual({ ...RECORD, fingerprint });
      // Reserving a key again after it expired or was released starts without the old fingerprint.
      await store.release('k');
      await store.setPending('k');
      await store.complete('k', RECORD);
      expect(await store.get('k')).toEqual(RECORD);
    });

    it('keeps a record without a content type as such', async () => {
      const { store } = await fresh();
      await store.setPending('k');
      await store.complete('k', { status: 204, body: '' });
      expect(await store.get('k')).toEqual({ status: 204, body: '' });
    });

    it('frees a released key for a new reservation', async () => {
      const { store } = await fresh();
      await store.setPending('k');
      await store.release('k');
      expect(await store.get('k')).toBeUndefined();
      expect(await store.setPending('k')).toBe(true);
      await store.release('never-reserved');
    });

    it('forgets pending and completed keys once ttlMs passed, counted from their last write', async () => {
      const { clock, store } = await fresh();
      await store.setPending('p');
      await store.setPending('c');
      clock.advance(TTL / 2);
      await store.complete('c', RECORD); // completing renews the key's time
      clock.advance(TTL / 2 - 1);
      expect(await store.get('p')).toBe('pending');
      clock.advance(1);
      expect(await store.get('p')).toBeUndefined();
      expect(await store.setPending('p')).toBe(true);
      expect(await store.get('c')).toEqual(RECORD);
      clock.advance(TTL / 2);
      expect(await store.get('c')).toBeUndefined();
      expect(await store.setPending('c')).toBe(true);
    });

    it('holds its own copy of a record', async () => {
      const { store } = await fresh();
      const record = { ...RECORD };
      await store.setPending('k');
      await store.complete('k', record);
      record.status = 500;
      expect(await store.get('k')).toEqual(RECORD);
    });

    it('reserves a key for exactly one of many concurrent callers', async () => {
      const { store } = await fresh();
      const wins = await Promise.all(Array.from({ length: 50 }, () => store.setPending('race')));
      expect(wins.filter(Boolean)).toHaveLength(1);
    });
  });
}
