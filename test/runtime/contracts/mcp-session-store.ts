// The McpSessionStore contract (runtime/mcp/server/session-store.ts) as a
// reusable suite: memory, SQL and Redis run it. `makeStore(limits, clock)` gives a fresh, empty store made for
// `limits` and reading time from `clock.now`, so the suite moves time by hand.
import { describe, expect, it } from 'vitest';
import type { McpSessionLimits, McpSessionRecord, McpSessionStore, ProtocolVersion } from 'svckit';
import { fakeClock, type FakeClock } from './fake-clock.js';

const T0 = 1_700_000_000_000;
const TTL = 60_000;

type Factory = (limits: McpSessionLimits, clock: FakeClock) => Promise<McpSessionStore> | McpSessionStore;

const session = (
  id: string,
  caller = 'alice',
  protocolVersion: ProtocolVersion = '2025-06-18',
  owner = caller,
): McpSessionRecord => ({ id, caller, owner, protocolVersion });

/** A session of `caller` counted against `owner` (an anonymous caller's address). */
const owned = (id: string, owner: string, caller = 'alice'): McpSessionRecord =>
  session(id, caller, '2025-06-18', owner);

export function mcpSessionStoreContract(name: string, makeStore: Factory): void {
  describe(`McpSessionStore contract: ${name}`, () => {
    const fresh = async (limits: Partial<McpSessionLimits> = {}) => {
      const clock = fakeClock(T0);
      const store = await makeStore({ ttlMs: TTL, maxSessions: 100, maxPerCaller: 100, ...limits }, clock);
      return { clock, store };
    };

    /** The ids of `ids` the caller (alice) can still use; using them touches them, in the order given. */
    const liveOf = async (store: McpSessionStore, ids: readonly string[], caller = 'alice') => {
      const live: string[] = [];
      for (const id of ids) if ((await store.use(id, caller)) !== undefined) live.push(id);
      return live;
    };

    it('keeps a session for its caller, with its protocol version, and knows no other id', async () => {
      const { store } = await fresh();
      await store.open(session('a', 'alice', '2025-06-18'));
      await store.open(session('b', 'alice', '2024-11-05'));
      await store.open(session('c', 'bob', '2025-11-25'));
      expect(await store.use('a', 'alice')).toEqual(session('a', 'alice', '2025-06-18'));
      expect(await store.use('b', 'alice')).toEqual(session('b', 'alice', '2024-11-05'));
      expect(await store.use('c', 'bob')).toEqual(session('c', 'bob', '2025-11-25'));
      expect(await store.use('unknown', 'alice')).toBeUndefined();
      expect(await store.close('unknown', 'alice')).toBe(false);
    });

    it('forgets a session idle for exactly ttlMs, not one idle a millisecond less', async () => {
      const { clock, store } = await fresh();
      await store.open(session('a'));
      await store.open(session('b'));
      clock.advance(TTL - 1);
      expect(await store.use('a', 'alice')).toBeDefined();
      clock.advance(1);
      expect(await store.use('b', 'alice')).toBeUndefined();
      expect(await store.close('b', 'alice')).toBe(false);
      expect(await store.use('a', 'alice')).toBeDefined(); // used 1 ms ago
    });

    it('resets the idle time on every use', async () => {
      const { clock, store } = await fresh();
      await store.open(session('a'));
      for (let i = 0; i < 3; i += 1) {
        clock.advance(TTL - 1);
        expect(await store.use('a', 'alice'), `use ${i}`).toBeDefined();
      }
      clock.advance(TTL);
      expect(await store.use('a', 'alice')).toBeUndefined();
    });

    it('treats another caller as not found and leaves the session untouched: it expires on the owner’s schedule', async () => {
      const { clock, store } = await fresh();
      await store.open(session('a', 'alice'));
      expect(await store.use('a', 'mallory')).toBeUndefined();
      expect(await store.use('a', 'alice')).toEqual(session('a', 'alice'));
      clock.advance(TTL - 1);
      expect(await store.use('a', 'mallory')).toBeUndefined(); // no touch
      clock.advance(1);
      expect(await store.use('a', 'alice')).toBeUndefined();
    });

    it('ends a session for its owner only, once', async () => {
      const { store } = await fresh();
      await store.open(session('a', 'alice'));
      expect(await store.close('a', 'mallory')).toBe(false);
      expect(await store.use('a', 'alice')).toBeDefined();
      expect(await store.close('a', 'alice')).toBe(true);
      expect(await store.use('a', 'alice')).toBeUndefined();
      expect(await store.close('a', 'alice')).toBe(false);
    });

    it('evicts the least recently opened beyond maxSessions', async () => {
      const { clock, store } = await fresh({ maxSessions: 3 });
      for (const id of ['a', 'b', 'c', 'd']) {
        await store.open(session(id));
        clock.advance(1);
      }
      expect(await liveOf(store, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
    });

    it('counts a use as recent: the least recently used goes, not the oldest', async () => {
      const { clock, store } = await fresh({ maxSessions: 3 });
      for (const id of ['a', 'b', 'c']) {
        await store.open(session(id));
        clock.advance(1);
      }
      expect(await store.use('a', 'alice')).toBeDefined();
      clock.advance(1);
      await store.open(session('d'));
      clock.advance(1);
      expect(await liveOf(store, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
    });

    it('does not count another caller’s use as recent', async () => {
      const { clock, store } = await fresh({ maxSessions: 2 });
      await store.open(session('a'));
      clock.advance(1);
      await store.open(session('b'));
      clock.advance(1);
      expect(await store.use('a', 'mallory')).toBeUndefined();
      clock.advance(1);
      await store.open(session('c'));
      expect(await liveOf(store, ['a', 'b', 'c'])).toEqual(['b', 'c']);
    });

    it('does not count expired sessions towards maxSessions', async () => {
      const { clock, store } = await fresh({ maxSessions: 2 });
      await store.open(session('old'));
      clock.advance(TTL);
      await store.open(session('a'));
      clock.advance(1);
      await store.open(session('b'));
      expect(await liveOf(store, ['old', 'a', 'b'])).toEqual(['a', 'b']);
    });

    it('keeps the maxSessions most recent of many opens', async () => {
      const { clock, store } = await fresh({ maxSessions: 5 });
      const ids = Array.from({ length: 30 }, (_, i) => `s${i}`);
      for (const id of ids) {
        await store.open(session(id));
        clock.advance(1);
      }
      expect(await liveOf(store, ids)).toEqual(ids.slice(-5));
    });

    it('of 20 concurrent opens keeps exactly maxSessions, the most recent ones', async () => {
      const { clock, store } = await fresh({ maxSessions: 5 });
      const ids = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      // Each open reads the clock when called: 1 ms apart.
      await Promise.all(
        ids.map((id) => {
          const opened = store.open(session(id));
          clock.advance(1);
          return opened;
        }),
      );
      expect(await liveOf(store, ids)).toEqual(ids.slice(-5));
    });

    it('of 20 concurrent opens at one instant keeps exactly maxSessions, each usable', async () => {
      const { store } = await fresh({ maxSessions: 5 });
      const ids = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      await Promise.all(ids.map((id) => store.open(session(id))));
      expect(await liveOf(store, ids)).toHaveLength(5);
    });

    it('answers a session’s owner with it, its caller when opened without one', async () => {
      const { store } = await fresh();
      await store.open(owned('a', 'ip:1'));
      await store.open({ id: 'b', caller: 'bob', protocolVersion: '2025-06-18' });
      expect(await store.use('a', 'alice')).toEqual(owned('a', 'ip:1'));
      expect(await store.use('b', 'bob')).toEqual(session('b', 'bob'));
    });

    it('beyond maxPerCaller evicts the owner’s least recently used, and no other owner’s session', async () => {
      const { clock, store } = await fresh({ maxPerCaller: 3 });
      await store.open(owned('other', 'ip:2', 'bob'));
      clock.advance(1);
      for (const id of ['a', 'b', 'c']) {
        await store.open(owned(id, 'ip:1'));
        clock.advance(1);
      }
      expect(await store.use('a', 'alice')).toBeDefined(); // b is now ip:1's least recently used
      clock.advance(1);
      await store.open(owned('d', 'ip:1'));
      clock.advance(1);
      expect(await liveOf(store, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
      // The oldest session of all belongs to another owner: untouched.
      expect(await store.use('other', 'bob')).toBeDefined();
    });

    it('counts every caller key of one owner together: one address, many Authorization values', async () => {
      const { clock, store } = await fresh({ maxPerCaller: 2 });
      for (const [id, caller] of [
        ['a', 'fp-1'],
        ['b', 'fp-2'],
        ['c', 'fp-3'],
      ] as const) {
        await store.open(owned(id, 'ip:1', caller));
        clock.advance(1);
      }
      expect(await store.use('a', 'fp-1')).toBeUndefined();
      expect(await store.use('b', 'fp-2')).toBeDefined();
      expect(await store.use('c', 'fp-3')).toBeDefined();
    });

    it('does not count an owner’s ended or expired sessions towards maxPerCaller', async () => {
      const { clock, store } = await fresh({ maxPerCaller: 2 });
      await store.open(owned('old', 'ip:1'));
      clock.advance(TTL);
      await store.open(owned('a', 'ip:1'));
      await store.open(owned('ended', 'ip:1'));
      expect(await store.close('ended', 'alice')).toBe(true);
      clock.advance(1);
      await store.open(owned('b', 'ip:1'));
      expect(await liveOf(store, ['old', 'a', 'b'])).toEqual(['a', 'b']);
    });

    it('still evicts beyond maxSessions across owners after the owner’s own cap', async () => {
      const { clock, store } = await fresh({ maxSessions: 3, maxPerCaller: 2 });
      for (const [id, owner] of [
        ['a', 'ip:1'],
        ['b', 'ip:2'],
        ['c', 'ip:3'],
        ['d', 'ip:4'],
      ] as const) {
        await store.open(owned(id, owner));
        clock.advance(1);
      }
      expect(await liveOf(store, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
    });

    it('of 20 concurrent opens by one owner keeps exactly maxPerCaller, and another owner’s sessions', async () => {
      const { clock, store } = await fresh({ maxPerCaller: 4 });
      const others = ['o1', 'o2', 'o3'];
      for (const id of others) await store.open(owned(id, 'user:bob', 'bob'));
      clock.advance(1);
      const ids = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      await Promise.all(ids.map((id) => store.open(owned(id, 'ip:1'))));
      const live = await liveOf(store, ids);
      expect(live).toHaveLength(4);
      expect(await liveOf(store, others, 'bob')).toEqual(others);
      // And the cap still holds for the next open: one of the four goes.
      await store.open(owned('next', 'ip:1'));
      expect(await liveOf(store, [...ids, 'next'])).toHaveLength(4);
    });

    it('of 20 concurrent opens by one owner, 1 ms apart, keeps the maxPerCaller most recent', async () => {
      const { clock, store } = await fresh({ maxPerCaller: 4 });
      const ids = Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      await Promise.all(
        ids.map((id) => {
          const opened = store.open(owned(id, 'ip:1'));
          clock.advance(1);
          return opened;
        }),
      );
      expect(await liveOf(store, ids)).toEqual(ids.slice(-4));
    });

    it('never evicts the session it just opened in favour of one seen at the same instant', async () => {
      const { store } = await fresh({ maxSessions: 2 });
      // Ids sorting before and after the new ones: eviction among equals must not fall on the newcomer.
      for (const id of ['m1', 'm2', 'a0', 'z9']) {
        await store.open(session(id));
        expect(await store.use(id, 'alice'), id).toEqual(session(id));
      }
    });

    it('never evicts the session it just opened in favour of the owner’s one seen at the same instant', async () => {
      const { store } = await fresh({ maxPerCaller: 2 });
      for (const id of ['m1', 'm2', 'a0', 'z9']) {
        await store.open(owned(id, 'ip:1'));
        expect(await store.use(id, 'alice'), id).toEqual(owned(id, 'ip:1'));
      }
    });
  });
}
