// One spelling per access token (issue 16 item 7): jose on Node 20 decodes base64url leniently, so a token
// with a space in its signature, a last character whose unused bits are set, or `=` padding would decode to
// the same signed bytes. svc accepts only the spelling it signed: anything else is 401 AUTH_TOKEN_INVALID,
// whether or not the canonical token was seen (and cached) before.
import { describe, expect, it } from 'vitest';
import { bearer, codeOf, get, register, withAuth } from './auth-harness.js';
import { adapters } from './harness.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Other spellings of `token` that a lenient base64url decoder reads as the same bytes. */
function otherSpellings(token: string): Record<string, string> {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const last = signature.at(-1) ?? '';
  // A 32-byte HMAC is 43 characters: the last one carries 2 unused bits; setting the lowest is invisible.
  const flipped = ALPHABET[ALPHABET.indexOf(last) ^ 1] ?? '';
  return {
    'a space inside the signature': `${header}.${payload}.${signature.slice(0, 20)} ${signature.slice(20)}`,
    'a non-canonical last character': `${header}.${payload}.${signature.slice(0, -1)}${flipped}`,
    'a trailing =': `${token}=`,
    'padding in the payload': payload.length % 4 === 0 ? `${token}=` : `${header}.${payload}=.${signature}`,
  };
}

describe.each(adapters)('access-token spellings on $name', (adapter) => {
  it('refuses every other spelling of a valid token with 401 AUTH_TOKEN_INVALID, before and after its use', async () => {
    await withAuth(adapter, async ({ url }) => {
      const alice = await register(url);
      const spellings = otherSpellings(alice.accessToken);
      expect(
        Buffer.from(spellings['a non-canonical last character']?.split('.')[2] ?? '', 'base64url'),
      ).toEqual(Buffer.from(alice.accessToken.split('.')[2] ?? '', 'base64url'));
      for (const round of ['unseen', 'cached']) {
        for (const [kind, token] of Object.entries(spellings)) {
          const answer = await get(url, '/public', bearer(token));
          expect([answer.status, codeOf(answer.json)], `${round}: ${kind}`).toEqual([
            401,
            'AUTH_TOKEN_INVALID',
          ]);
        }
        const canonical = await get(url, '/auth/me', bearer(alice.accessToken));
        expect(canonical.status).toBe(200);
      }
    });
  });
});
