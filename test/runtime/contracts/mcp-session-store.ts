// The McpSessionStore contract (seed 001 "Tool session rows", runtime/mcp/server/session-store.ts) as a
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
): McpSessionRecord => ({ id, caller, protocolVersion });

export function mcpSessionStoreContract(name: string, makeStore: Factory): void {
  describe(`McpSessionStore contract: ${name}`, () => {
    const fresh = async (limits: Partial<McpSessionLimits> = {}) => {
      const clock = fakeClock(T0);
      const store = await makeStore({ ttlMs: TTL, maxSessions: 100, ...limits }, clock);
      return { clock, store };
    };

    /** The ids of `ids` the owner (alice) can still use; using them touches them, in the order given. */
    const liveOf = async (store: McpSessionStore, ids: readonly string[]) => {
      const live: string[] = [];
      for (const id of ids) if ((await store.use(id, 'alice')) !== undefined) live.push(id);
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

    it('never evicts the session it just opened in favour of one seen at the same instant', async () => {
      const { store } = await fresh({ maxSessions: 2 });
      // Ids sorting before and after the new ones: eviction among equals must not fall on the newcomer.
      for (const id of ['m1', 'm2', 'a0', 'z9']) {
        await store.open(session(id));
        expect(await store.use(id, 'alice'), id).toEqual(session(id));
      }
    });
  });
}
