// The bearer token of the auth bench: signed like any sign-in's, for a user that exists only in its claims
// (the enricher reads the user from the token, without a lookup).
import { Auth } from 'svckit';
import { BENCH_ACCESS_TTL, BENCH_AUTH_SECRET } from './servers/auth-secret.js';

export async function benchBearerHeaders(): Promise<Record<string, string>> {
  const auth = new Auth({ secret: BENCH_AUTH_SECRET, accessTtl: BENCH_ACCESS_TTL });
  const user = { id: 'bench-user', email: 'bench@example.com', emailVerified: true };
  const { accessToken } = await auth.issueTokens(user, ['pwd']);
  return { authorization: `Bearer ${accessToken}` };
}
