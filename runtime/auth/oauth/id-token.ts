// The checks on an ID token (OpenID Connect Core 3.1.3.7), with jose: a signature by one of the provider's
// keys (asymmetric algorithms only: never `none`, never a MAC keyed by the client secret), `iss` equal to the
// provider's issuer when it declares one, `aud` including the client id and `azp` equal to it when present
// (required when `aud` names several), `exp` in the future, `iat` neither in the future nor older than an
// hour, a non-empty `sub`, and the `nonce` derived for this sign-in. One minute of clock skew is tolerated.
import { jwtVerify, type JWTPayload } from 'jose';
import { OAuthExchangeError } from './exchange-error.js';
import type { ProviderKeys } from './jwks.js';
import type { ProviderContext } from './types.js';

const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const CLOCK_TOLERANCE_S = 60;
const MAX_TOKEN_AGE_S = 60 * 60;

export interface IdTokenExpectations {
  /** The provider's JWKS URL. */
  jwks: string;
  clientId: string;
  /** Checked when defined. */
  issuer: string | undefined;
  nonce: string;
}

/** The claims of `token` once every check passed; else an OAuthExchangeError saying which failed. */
export async function verifyIdToken(
  token: unknown,
  keys: ProviderKeys,
  expected: IdTokenExpectations,
  context: ProviderContext,
): Promise<JWTPayload> {
  if (typeof token !== 'string' || token === '') {
    throw new OAuthExchangeError('token endpoint answered no id_token');
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await keys.withKeys(context, expected.jwks, (keySet) =>
      jwtVerify(token, keySet, {
        algorithms: ALGORITHMS,
        audience: expected.clientId,
        ...(expected.issuer === undefined ? {} : { issuer: expected.issuer }),
        currentDate: new Date(context.clock()),
        clockTolerance: CLOCK_TOLERANCE_S,
        maxTokenAge: MAX_TOKEN_AGE_S,
        requiredClaims: ['exp', 'iat', 'sub'],
      }),
    ));
  } catch (error) {
    if (error instanceof OAuthExchangeError) throw error;
    const code = (error as { code?: unknown }).code;
    throw new OAuthExchangeError(
      `id_token refused (${String(code ?? 'error')}): ${(error as Error).message}`,
    );
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== expected.clientId) {
    throw new OAuthExchangeError('id_token refused: azp is not the client id');
  }
  if (typeof payload.nonce !== 'string' || payload.nonce !== expected.nonce) {
    throw new OAuthExchangeError('id_token refused: nonce missing or not the one sent');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') {
    throw new OAuthExchangeError('id_token refused: no sub');
  }
  return payload;
}
