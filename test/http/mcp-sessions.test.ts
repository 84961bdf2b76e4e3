// Tool sessions on every adapter (docs/mcp.md, "The HTTP endpoint"): opened by initialize, bound to the caller that
// opened it (user + tenant, or a keyed fingerprint of Authorization), kept alive by use, gone after the idle
// ttl or LRU eviction beyond maxSessions, ended by DELETE; `sessions: false` runs stateless. Tool call
// running → cancelled by notifications/cancelled in the same session (or by ending the session). One caller
// (a user, or an anonymous client address) holds at most `maxPerCaller` (16) sessions, its own least recently
// used evicted beyond that; anonymous sessions follow the caller to every process sharing `sessions.secret`.
import { describe, expect, it } from 'vitest';
import {
  MemoryMcpSessionStore,
  route,
  toolSignal,
  type McpSessionLimits,
  type McpSessionStore,
} from 'svckit';
import { adapters } from './harness.js';
import {
  envelope,
  fakeAuth,
  header,
  initialize,
  initializeMessage,
  inSession,
  openSession,
  request,
  resultOf,
  rpcError,
  send,
  toolResult,
  withMcp,
} from './mcp-helpers.js';

const whoami = route({
  method: 'GET',
  url: '/whoami',
  meta: { mcp: true },
  handler: ({ context }) => ({ user: context.user ?? null }),
});
const routes = [whoami];

const SESSION_REQUIRED = envelope('MCP_SESSION_REQUIRED', 'Mcp-Session-Id header is required.');
const SESSION_NOT_FOUND = envelope('MCP_SESSION_NOT_FOUND', 'Session not found.');

/** In-memory sessions on a clock the test moves: `sessions: { ttlMs, store: clock.store }`. */
function manualClock() {
  let now = Date.now();
  return {
    advance: (ms: number) => {
      now += ms;
    },
    store: (limits: McpSessionLimits) => new MemoryMcpSessionStore(limits, () => now),
  };
}

describe.each(adapters)('tool sessions on $name', (adapter) => {
  describe('none → active → ended', () => {
    it('initialize opens a session that later requests use', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        const listed = await session.list();
        expect(listed.status).toBe(200);
        expect(resultOf(listed).tools).toEqual([expect.objectContaining({ name: 'get_whoami' })]);
        const called = await session.call('get_whoami', {});
        expect(toolResult(called).structuredContent).toEqual({ user: null });
      });
    });

    it('DELETE ends the session: 204, then 404 for any later use', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const session = await openSession(url);
        const other = await openSession(url);
        const removed = await session.remove();
        expect(removed.status).toBe(204);
        expect(removed.body).toBe('');
        const after = await session.list();
        expect(after.status).toBe(404);
        expect(after.json).toEqual(SESSION_NOT_FOUND);
        const again = await session.remove();
        expect(again.status).toBe(404);
        expect(again.json).toEqual(SESSION_NOT_FOUND);
        // Ending one session leaves the others alone.
        expect((await other.list()).status).toBe(200);
      });
    });

    it('DELETE without the header is 400, with an unknown id 404', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const missing = await send(url, undefined, { method: 'DELETE' });
        expect(missing.status).toBe(400);
        expect(missing.json).toEqual(SESSION_REQUIRED);
        const unknown = await inSession(url, 'no-such-session').remove();
        expect(unknown.status).toBe(404);
        expect(unknown.json).toEqual(SESSION_NOT_FOUND);
      });
    });
  });

  describe('bound to the caller', () => {
    it('anonymous: bound to the Authorization header; another value, or none, gets 404', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        const opener = { authorization: 'Basic b3duZXI6cHc=' };
        const session = await openSession(url, { headers: opener });
        const foreign = inSession(url, session.id, { authorization: 'Basic b3RoZXI6cHc=' });
        expect((await foreign.list()).status).toBe(404);
        expect((await foreign.list()).json).toEqual(SESSION_NOT_FOUND);
        expect((await inSession(url, session.id).list()).status).toBe(404);
        // A foreign DELETE ends nothing.
        expect((await foreign.remove()).status).toBe(404);
        expect((await session.list()).status).toBe(200);

        const bare = await openSession(url);
        expect((await inSession(url, bare.id, opener).list()).status).toBe(404);
        expect((await bare.list()).status).toBe(200);
      });
    });

    it('signed in: bound to user + tenant, not to the credential', async () => {
      await withMcp(adapter, { routes, plugins: [fakeAuth()] }, async (url) => {
        const alice = { authorization: 'Bearer alice.token-1', 'x-tenant-id': 't1' };
        const session = await openSession(url, { headers: alice });
        // A new token of the same user in the same tenant is the same caller.
        const renewed = inSession(url, session.id, {
          authorization: 'Bearer alice.token-2',
          'x-tenant-id': 't1',
        });
        const listed = await renewed.list();
        expect(listed.status).toBe(200);
        const strangers: Array<Record<string, string>> = [
          { authorization: 'Bearer bob.token-1', 'x-tenant-id': 't1' },
          { authorization: 'Bearer alice.token-1', 'x-tenant-id': 't2' },
          { authorization: 'Bearer alice.token-1' },
          { 'x-tenant-id': 't1' },
        ];
        for (const headers of strangers) {
          const response = await inSession(url, session.id, headers).list();
          expect(response.status).toBe(404);
          expect(response.json).toEqual(SESSION_NOT_FOUND);
        }
        expect((await inSession(url, session.id, { authorization: 'Bearer bob' }).remove()).status).toBe(404);
        expect((await session.list()).status).toBe(200);
        expect((await session.remove()).status).toBe(204);
      });
    });
  });

  describe('idle timeout and eviction', () => {
    it('is gone after ttlMs idle; use resets the idle timer', async () => {
      const clock = manualClock();
      const sessions = { ttlMs: 300, store: clock.store };
      await withMcp(adapter, { routes, endpoint: { sessions } }, async (url) => {
        const kept = await openSession(url);
        const idle = await openSession(url);
        for (let step = 0; step < 3; step++) {
          clock.advance(150);
          expect((await kept.send(request('ping'))).status).toBe(200);
        }
        // 450 ms since it was opened, never idle for 300 ms: still there. The idle one is gone.
        const expired = await idle.list();
        expect(expired.status).toBe(404);
        expect(expired.json).toEqual(SESSION_NOT_FOUND);
        expect((await idle.remove()).status).toBe(404);
        clock.advance(299);
        expect((await kept.list()).status).toBe(200);
        clock.advance(300);
        const late = await kept.list();
        expect(late.status).toBe(404);
        expect(late.json).toEqual(SESSION_NOT_FOUND);
      });
    });

    it('a client re-initializes after its session expired', async () => {
      const clock = manualClock();
      await withMcp(
        adapter,
        { routes, endpoint: { sessions: { ttlMs: 150, store: clock.store } } },
        async (url) => {
          const first = await openSession(url);
          clock.advance(150);
          expect((await first.list()).status).toBe(404);
          const second = await openSession(url);
          expect(second.id).not.toBe(first.id);
          expect((await second.list()).status).toBe(200);
        },
      );
    });

    it('beyond maxSessions the least recently used session is evicted', async () => {
      await withMcp(adapter, { routes, endpoint: { sessions: { maxSessions: 2 } } }, async (url) => {
        const one = await openSession(url);
        const two = await openSession(url);
        // Using one makes two the least recently used.
        expect((await one.list()).status).toBe(200);
        const three = await openSession(url);
        const evicted = await two.list();
        expect(evicted.status).toBe(404);
        expect(evicted.json).toEqual(SESSION_NOT_FOUND);
        expect((await three.list()).status).toBe(200);
        expect((await one.list()).status).toBe(200);
        // Used in the order three, one: now three is the least recently used.
        const four = await openSession(url);
        expect((await three.list()).status).toBe(404);
        expect((await one.list()).status).toBe(200);
        expect((await four.list()).status).toBe(200);
      });
    });

    it('a 17th initialize from one address evicts that address’s first session and no other caller’s', async () => {
      await withMcp(adapter, { routes, plugins: [fakeAuth()] }, async (url) => {
        const alice = await openSession(url, { headers: { authorization: 'Bearer alice' } });
        const neighbour = await openSession(url, { from: '127.0.0.3' });
        const opened: string[] = [];
        // One address, ever new Authorization values: still one caller's allowance.
        for (let i = 0; i < 17; i++)
          opened.push(
            await initialize(url, { from: '127.0.0.2', headers: { authorization: `Basic k${i}` } }),
          );
        const first = await inSession(url, opened[0]!, { authorization: 'Basic k0' }).list();
        expect(first.status).toBe(404);
        expect(first.json).toEqual(SESSION_NOT_FOUND);
        for (const [i, id] of opened.entries())
          if (i > 0)
            expect((await inSession(url, id, { authorization: `Basic k${i}` }).list()).status).toBe(200);
        expect((await alice.list()).status).toBe(200);
        expect((await neighbour.list()).status).toBe(200);
      });
    });

    it('sessions.maxPerCaller sets the allowance; a signed-in user’s counts per user, wherever it calls from', async () => {
      const endpoint = { sessions: { maxPerCaller: 2 } };
      await withMcp(adapter, { routes, plugins: [fakeAuth()], endpoint }, async (url) => {
        const bearer = { authorization: 'Bearer alice' };
        const one = await openSession(url, { headers: bearer, from: '127.0.0.2' });
        const two = await openSession(url, { headers: bearer, from: '127.0.0.3' });
        const bob = await openSession(url, { headers: { authorization: 'Bearer bob' }, from: '127.0.0.2' });
        const three = await openSession(url, { headers: bearer, from: '127.0.0.4' });
        expect((await one.list()).status).toBe(404);
        expect((await two.list()).status).toBe(200);
        expect((await three.list()).status).toBe(200);
        expect((await bob.list()).status).toBe(200);
      });
    });

    it('anonymous floods from several addresses stay within their allowances: a signed-in session survives', async () => {
      // 3 addresses × 20 initializes against 50 live sessions: each address keeps 16, 48 in all.
      const endpoint = { sessions: { maxSessions: 50 } };
      await withMcp(adapter, { routes, plugins: [fakeAuth()], endpoint }, async (url) => {
        const alice = await openSession(url, { headers: { authorization: 'Bearer alice' } });
        for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4'])
          await Promise.all(Array.from({ length: 20 }, () => initialize(url, { from })));
        expect((await alice.list()).status).toBe(200);
      });
    });

    it('without use in between, the oldest session is evicted first', async () => {
      await withMcp(adapter, { routes, endpoint: { sessions: { maxSessions: 2 } } }, async (url) => {
        const one = await openSession(url);
        const two = await openSession(url);
        const three = await openSession(url);
        expect((await one.list()).status).toBe(404);
        expect((await two.list()).status).toBe(200);
        expect((await three.list()).status).toBe(200);
      });
    });
  });

  describe('anonymous sessions across processes (sessions.secret)', () => {
    /** Two apps sharing one store, as two processes share Redis or PostgreSQL. */
    async function twoApps(
      secrets: [string | undefined, string | undefined],
      body: (first: string, second: string) => Promise<void>,
    ): Promise<void> {
      const shared: McpSessionStore = new MemoryMcpSessionStore({ ttlMs: 60_000, maxSessions: 100 });
      const sessions = (secret: string | undefined) => ({
        store: () => shared,
        ...(secret === undefined ? {} : { secret }),
      });
      await withMcp(adapter, { routes, endpoint: { sessions: sessions(secrets[0]) } }, (first) =>
        withMcp(adapter, { routes, endpoint: { sessions: sessions(secrets[1]) } }, (second) =>
          body(first, second),
        ),
      );
    }
    const SECRET = 'a-service-secret-of-at-least-32-chars';
    const bearer = { authorization: 'Bearer opaque-token' };

    it('a session opened anonymously on one app is usable on another sharing the secret and the store', async () => {
      await twoApps([SECRET, SECRET], async (first, second) => {
        const opened = await openSession(first, { headers: bearer });
        const elsewhere = inSession(second, opened.id, bearer);
        expect((await elsewhere.list()).status).toBe(200);
        // Still bound to the caller there: another Authorization value is a stranger.
        expect((await inSession(second, opened.id, { authorization: 'Bearer other' }).list()).status).toBe(
          404,
        );
        const bare = await openSession(first);
        expect((await inSession(second, bare.id).list()).status).toBe(200);
        expect((await elsewhere.remove()).status).toBe(204);
        expect((await opened.list()).status).toBe(404);
      });
    });

    it('is foreign (404) on an app with another secret, or none, and still usable where it was opened', async () => {
      for (const other of ['another-service-secret-of-32-chars!!', undefined]) {
        await twoApps([SECRET, other], async (first, second) => {
          const opened = await openSession(first, { headers: bearer });
          const elsewhere = await inSession(second, opened.id, bearer).list();
          expect(elsewhere.status).toBe(404);
          expect(elsewhere.json).toEqual(SESSION_NOT_FOUND);
          expect((await opened.list()).status).toBe(200);
        });
      }
    });
  });

  describe('negotiated version', () => {
    it('a session keeps the version it negotiated: no structuredContent under 2024-11-05 or 2025-03-26', async () => {
      await withMcp(adapter, { routes }, async (url) => {
        for (const version of ['2024-11-05', '2025-03-26']) {
          const session = await openSession(url, { protocolVersion: version });
          const result = toolResult(await session.call('get_whoami', {}));
          expect(result.content).toEqual([{ type: 'text', text: '{"user":null}' }]);
          expect(result).not.toHaveProperty('structuredContent');
        }
        for (const version of ['2025-06-18', '2025-11-25']) {
          const session = await openSession(url, { protocolVersion: version });
          expect(toolResult(await session.call('get_whoami', {})).structuredContent).toEqual({ user: null });
        }
      });
    });
  });

  describe('sessions: false (stateless)', () => {
    it('sends no Mcp-Session-Id and answers every method without one', async () => {
      await withMcp(adapter, { routes, endpoint: { sessions: false } }, async (url) => {
        const init = await send(url, initializeMessage());
        expect(init.status).toBe(200);
        expect(header(init, 'mcp-session-id')).toBeUndefined();
        expect(resultOf(init).protocolVersion).toBe('2025-11-25');
        const listed = await send(url, request('tools/list'));
        expect(listed.status).toBe(200);
        expect(resultOf(listed).tools).toEqual([expect.objectContaining({ name: 'get_whoami' })]);
        const called = await send(url, request('tools/call', { name: 'get_whoami', arguments: {} }));
        expect(called.status).toBe(200);
        expect(toolResult(called).content).toEqual([{ type: 'text', text: '{"user":null}' }]);
        // A stray session header is not looked at.
        const stray = await inSession(url, 'whatever').list();
        expect(stray.status).toBe(200);
      });
    });

    it('runs under 2025-03-26 without the version header, else under the header’s version', async () => {
      await withMcp(adapter, { routes, endpoint: { sessions: false } }, async (url) => {
        const call = request('tools/call', { name: 'get_whoami', arguments: {} });
        const assumed = toolResult(await send(url, call));
        expect(assumed).not.toHaveProperty('structuredContent');
        const latest = await send(url, call, { headers: { 'mcp-protocol-version': '2025-11-25' } });
        expect(toolResult(latest).structuredContent).toEqual({ user: null });
        const unsupported = await send(url, call, { headers: { 'mcp-protocol-version': '2030-01-01' } });
        expect(unsupported.status).toBe(400);
        expect(unsupported.json).toMatchObject({ error: { code: 'MCP_PROTOCOL_VERSION_UNSUPPORTED' } });
      });
    });
  });

  describe('cancellation', () => {
    /**
     * A call that runs, whatever happens, until the test releases it, then records whether its signal was
     * aborted. `started()` resolves when the next call has started; `held` counts calls not yet released.
     */
    function heldRoutes() {
      let onStart = () => {};
      const state = {
        aborted: [] as boolean[],
        held: 0,
        started: () => new Promise<void>((resolve) => (onStart = resolve)),
        release: () => {},
        done: Promise.resolve(),
      };
      const slow = route({
        method: 'POST',
        url: '/slow',
        meta: { mcp: true },
        handler: async ({ request: incoming }) => {
          let finish = () => {};
          state.done = new Promise<void>((resolve) => (finish = resolve));
          const released = new Promise<void>((resolve) => (state.release = resolve));
          state.held++;
          onStart();
          await released;
          state.held--;
          state.aborted.push(toolSignal(incoming)?.aborted === true);
          finish();
          return { finished: true };
        },
      });
      return { state, routes: [slow] };
    }

    it('notifications/cancelled in the same session answers the call at once with -32800', async () => {
      const { state, routes: slow } = heldRoutes();
      await withMcp(adapter, { routes: slow }, async (url) => {
        const session = await openSession(url);
        for (const id of ['call-1', 42]) {
          const started = state.started();
          const running = session.send(request('tools/call', { name: 'post_slow', arguments: {} }, id));
          await started;
          const cancel = await session.send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id },
          });
          expect(cancel.status).toBe(202);
          const answer = await running;
          expect(answer.status).toBe(200);
          expect(answer.json).toEqual({
            jsonrpc: '2.0',
            id,
            error: { code: -32800, message: 'Request cancelled.' },
          });
          // Answered while the handler still runs, which then sees its signal aborted.
          expect(state.held).toBe(1);
          expect(state.aborted).toHaveLength(id === 42 ? 1 : 0);
          state.release();
          await state.done;
        }
        expect(state.aborted).toEqual([true, true]);
      });
    });

    it('a cancel from another session does nothing', async () => {
      const { state, routes: slow } = heldRoutes();
      await withMcp(adapter, { routes: slow }, async (url) => {
        const session = await openSession(url);
        const other = await openSession(url);
        const started = state.started();
        const running = session.send(request('tools/call', { name: 'post_slow', arguments: {} }, 'c-1'));
        await started;
        await other.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c-1' } });
        state.release();
        const answer = await running;
        expect(toolResult(answer).structuredContent).toEqual({ finished: true });
        expect(state.aborted).toEqual([false]);
      });
    });

    it('ending the session with DELETE cancels its running calls', async () => {
      const { state, routes: slow } = heldRoutes();
      await withMcp(adapter, { routes: slow }, async (url) => {
        const session = await openSession(url);
        const started = state.started();
        const running = session.send(request('tools/call', { name: 'post_slow', arguments: {} }, 'd-1'));
        await started;
        expect((await session.remove()).status).toBe(204);
        expect(rpcError(await running)).toEqual({ code: -32800, message: 'Request cancelled.' });
        expect(state.aborted).toEqual([]);
        state.release();
        await state.done;
        expect(state.aborted).toEqual([true]);
      });
    });
  });
});
