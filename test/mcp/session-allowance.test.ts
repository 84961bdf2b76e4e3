// The per-caller session allowance at the default limits (1000 live, 16 per caller), driven through
// SessionTable as the endpoint drives it: the flood that once evicted a signed-in user's session (1,050
// anonymous initializes from 21 addresses) now evicts only the flooders' own sessions.
import { describe, expect, it } from 'vitest';
import type { RequestContext } from 'svckit';
import { SessionTable } from '../../runtime/mcp/server/sessions.js';

const context = (user?: string): RequestContext => ({
  requestId: 'r',
  correlationId: 'r',
  container: undefined,
  ...(user === undefined ? {} : { user: { id: user } }),
});

describe('sessions.maxPerCaller at the defaults', () => {
  it('1,050 anonymous initializes from 21 addresses do not evict a signed-in user’s session', async () => {
    const sessions = new SessionTable();
    const alice = sessions.callers.of(context('alice'), { authorization: 'Bearer a' }, '10.0.0.1');
    const kept = await sessions.open(alice, '2025-11-25');
    const flood: Array<{ id: string; key: string }> = [];
    for (let round = 0; round < 50; round++) {
      for (let address = 1; address <= 21; address++) {
        const caller = sessions.callers.of(context(), {}, `203.0.113.${address}`);
        flood.push({ id: (await sessions.open(caller, '2025-11-25')).id, key: caller.key });
      }
    }
    expect(await sessions.use(kept.id, alice.key)).toBeDefined();
    // Each address kept its 16 most recent sessions: 336 of the 1,050.
    let live = 0;
    for (const { id, key } of flood) if ((await sessions.use(id, key)) !== undefined) live++;
    expect(live).toBe(21 * 16);
  });

  it('keys an anonymous caller’s allowance by address and a signed-in caller’s by user + tenant', () => {
    const { callers } = new SessionTable();
    const anonymous = callers.of(context(), { authorization: 'Basic x' }, '203.0.113.1');
    expect(callers.of(context(), { authorization: 'Basic y' }, '203.0.113.1').owner).toBe(anonymous.owner);
    expect(callers.of(context(), { authorization: 'Basic x' }, '203.0.113.2').owner).not.toBe(
      anonymous.owner,
    );
    // The store never sees the address itself.
    expect(anonymous.owner).not.toContain('203.0.113.1');
    const user = callers.of(context('alice'), {}, '203.0.113.1');
    expect(user.owner).toBe(user.key);
    expect(callers.of(context('alice'), {}, '203.0.113.9').owner).toBe(user.owner);
  });

  it('derives the anonymous fingerprint from sessions.secret: equal secrets agree, others do not', () => {
    const anonymous = (table: SessionTable) =>
      table.callers.of(context(), { authorization: 'Bearer t' }, '203.0.113.1');
    const secret = 'x'.repeat(32);
    const one = anonymous(new SessionTable({ secret }));
    expect(anonymous(new SessionTable({ secret }))).toEqual(one);
    expect(anonymous(new SessionTable({ secret: 'y'.repeat(32) })).key).not.toBe(one.key);
    expect(anonymous(new SessionTable()).key).not.toBe(one.key);
    expect(anonymous(new SessionTable()).key).not.toBe(anonymous(new SessionTable()).key);
  });
});
