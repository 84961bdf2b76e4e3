// What route meta means for API keys, read the same way by the key guard (runtime/auth/http/apikey-rules.ts)
// and by the documents (shared/openapi/error-codes.ts).

/** Meta keys that protect a route: a key without `*` needs the route's own `scopes` to act on it. */
export const API_KEY_PROTECTING_META = ['auth', 'can', 'teamRole', 'audience'] as const;

/**
 * Routes that refuse every key: `apiKey: false`, and step-up routes (`mfa: true`), which ask for a sign-in
 * made with a second factor, something a key never is.
 */
export function refusesApiKeys(meta: { apiKey?: unknown; mfa?: unknown }): boolean {
  return meta.apiKey === false || meta.mfa === true;
}

/** Headers that already mean something: a key sent in one would be read as that too. */
export const API_KEY_RESERVED_HEADERS: readonly string[] = [
  'authorization',
  'cookie',
  'host',
  'x-session-id',
  'x-request-id',
  'content-type',
  'content-length',
];
