// A password reset whose new password is stored but whose invalidation cannot be confirmed to every process
// (the bus is down: 503) still ends every session, refresh token and API key of the user: the stores decide
// who is signed in, and a reset that stopped half-way must not leave the old holder signed in.
import { describe, expect, it } from 'vitest';
import { ApiKeys, Auth, MemoryUserSource } from 'svckit';
import { CachedUserSource } from '../../../runtime/stores/cache/cached-users.js';
import { rejectionOf } from '../contracts/rejection.js';
import { unreachableBus } from './fake-buses.js';

const SECRET = 'reset-unconfirmed-secret-0123456789abcdef';
const FAST_HASH = { ln: 4, r: 8, p: 1 };

describe('a password reset whose invalidation cannot be sent', () => {
  it('answers 503 and has ended every session, refresh token and key of the user anyway', async () => {
    const apiKeys = new ApiKeys({ scopes: ['*'] });
    const users = new CachedUserSource(new MemoryUserSource(), unreachableBus());
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, users, apiKeys });
    const tokens: string[] = [];
    auth.hooks.on('auth:password_reset_requested', ({ token }) => void tokens.push(token));
    const { user, tokens: pair } = await auth.register('victim@example.com', 'old password 1');
    const sessionId = await auth.createSession(user.id);
    const { key } = await apiKeys.issue({ name: 'k', scopes: ['*'], userId: user.id });
    expect(await auth.sessionAuth(sessionId)).not.toBeNull();

    await auth.requestPasswordReset('victim@example.com');
    await new Promise((resolve) => setImmediate(resolve));
    const error = await rejectionOf(auth.resetPassword(tokens[0] ?? '', 'new password 1'));
    expect([error.status, error.code]).toEqual([503, 'STORE_UNAVAILABLE']);

    expect(await auth.sessionAuth(sessionId)).toBeNull();
    expect((await rejectionOf(auth.refresh(pair.refreshToken))).code).toMatch(/^AUTH_REFRESH_/);
    expect((await apiKeys.verify(key)).ok).toBe(false);
  });
});
