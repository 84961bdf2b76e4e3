// Whose a tool session is: an API key is a caller of its own. A session opened with a user's sign-in is not
// usable with that user's key (the key may be narrower), nor one key's session with another key, and a key sent
// in its own header never falls in with anonymous callers.
import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../runtime/http/context.js';
import { CallerKeys } from '../../runtime/mcp/server/caller.js';

const SECRET = 'a-test-secret-that-is-32-chars-!';
const ALICE = { id: 'alice', email: 'alice@example.com', emailVerified: true };

function context(fields: { user?: unknown; apiKey?: unknown; tenant?: unknown }) {
  return Object.assign(createRequestContext('req', 'corr', undefined), fields);
}

describe('MCP session callers with API keys', () => {
  const keys = new CallerKeys(SECRET);

  it('tells a key apart from its user, from another key, and from anonymous callers', () => {
    const user = keys.keyOf(context({ user: ALICE }), {});
    const key1 = keys.keyOf(context({ user: ALICE, apiKey: { id: 'k1', scopes: ['notes:read'] } }), {});
    const key2 = keys.keyOf(context({ user: ALICE, apiKey: { id: 'k2', scopes: ['*'] } }), {});
    const userless = keys.keyOf(context({ apiKey: { id: 'k3', scopes: ['*'] } }), { 'x-api-key': 'x' });
    const anonymous = keys.keyOf(context({}), {});
    expect(new Set([user, key1, key2, userless, anonymous]).size).toBe(5);
    // The same key is the same caller on every request and process sharing the secret.
    expect(keys.keyOf(context({ user: ALICE, apiKey: { id: 'k1', scopes: [] } }), {})).toBe(key1);
    expect(new CallerKeys(SECRET).keyOf(context({ apiKey: { id: 'k3', scopes: [] } }), {})).toBe(userless);
  });

  it("counts a key's sessions against the key, not its client address", () => {
    const a = keys.of(context({ apiKey: { id: 'k3', scopes: ['*'] } }), {}, '10.0.0.1');
    const b = keys.of(context({ apiKey: { id: 'k3', scopes: ['*'] } }), {}, '10.0.0.2');
    expect(a.owner).toBe(b.owner);
    expect(a.owner).toBe(a.key);
  });

  it('keeps one tenant apart from another for the same key', () => {
    const inA = keys.keyOf(
      context({ apiKey: { id: 'k1', scopes: ['*'] }, tenant: { id: 'a', role: 'member' } }),
      {},
    );
    const inB = keys.keyOf(
      context({ apiKey: { id: 'k1', scopes: ['*'] }, tenant: { id: 'b', role: 'member' } }),
      {},
    );
    expect(inA).not.toBe(inB);
  });
});
