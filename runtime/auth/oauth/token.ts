// The token request (RFC 6749 4.1.3 with PKCE): the code, the redirect URI it was issued for and the verifier,
// with the client authenticated by HTTP Basic (its id and secret form-encoded first, as 2.3.1 says) or in the
// body. A reply with an `error` field is a refusal even when its status is 200 (GitHub answers so).
import { OAuthExchangeError } from './exchange-error.js';
import { callProvider, jsonObject } from './http.js';
import type { CodeExchange } from './types.js';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface TokenRequest {
  url: string;
  clientId: string;
  clientSecret: string;
  auth: TokenEndpointAuthMethod;
}

export async function requestTokens(
  request: TokenRequest,
  exchange: CodeExchange,
): Promise<Record<string, unknown>> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
    code_verifier: exchange.codeVerifier,
  });
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (request.auth === 'client_secret_basic') {
    const user = `${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
  } else {
    body.set('client_id', request.clientId);
    body.set('client_secret', request.clientSecret);
  }
  const reply = await callProvider(exchange, 'token endpoint', request.url, {
    method: 'POST',
    headers,
    body,
  });
  const tokens = jsonObject(reply.json, 'token endpoint');
  if (tokens.error !== undefined) {
    const code = typeof tokens.error === 'string' ? tokens.error.slice(0, 64) : 'unknown';
    throw new OAuthExchangeError(`token endpoint refused the code (error ${code})`);
  }
  return tokens;
}

/** application/x-www-form-urlencoded, as RFC 6749 2.3.1 has client credentials encoded before Basic. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
