// A small OpenID Connect provider on loopback for the protocol tests: discovery, JWKS, token and userinfo
// endpoints over node:http on 127.0.0.1, ID tokens signed with jose. `authorize(url)` plays the consent
// screen: it reads the request the service sent the browser to and answers the code the callback would
// carry, remembering the PKCE challenge, redirect URI and nonce; the token endpoint then refuses a verifier
// or redirect URI that does not match, as a real provider does. Each behaviour a test needs is a field to set.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export const CLIENT_ID = 'client-1';
export const CLIENT_SECRET = 'client-secret-1';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

interface Grant {
  challenge: string;
  redirectUri: string;
  nonce: string | undefined;
}

export type Claims = Record<string, unknown>;

export interface FakeProvider {
  readonly issuer: string;
  /** Unix ms, for the ID tokens' iat and exp: the service's fake clock. */
  now: () => number;
  /** Requests served, by path. */
  readonly hits: Map<string, number>;
  /** The form bodies the token endpoint received. */
  readonly tokenRequests: URLSearchParams[];
  /** The Authorization headers the token endpoint received. */
  readonly tokenAuthorizations: (string | undefined)[];
  /** The key ID tokens are signed with (default the first of `published`). */
  signer: SigningKey;
  /** The keys the JWKS endpoint lists. */
  published: SigningKey[];
  /** Changes the claims of the next ID tokens. */
  claims: (base: Claims) => Claims;
  /** What userinfo answers (default the same sub and email as the token). */
  userinfo: (base: Claims) => Claims;
  /** Changes the discovery document. */
  discovery: (base: Claims) => Claims;
  /** Extra headers of the discovery and JWKS replies (cache headers). */
  discoveryHeaders: Record<string, string>;
  jwksHeaders: Record<string, string>;
  /** Replaces the signing of ID tokens (an unsigned or MAC-signed token). */
  encode: ((claims: Claims) => Promise<string>) | undefined;
  /** How the token endpoint answers: a token reply (default), HTTP 500, a body that is not JSON, or late. */
  tokenMode: 'ok' | 'status-500' | 'not-json';
  tokenDelayMs: number;
  /** The consent screen: the code for the request in `url`, remembered with its challenge and nonce. */
  authorize(url: URL): string;
  close(): Promise<void>;
}

export async function startFakeProvider(options: { now: () => number }): Promise<FakeProvider> {
  const first = await signingKey('key-1');
  const grants = new Map<string, Grant>();
  let issuer = '';
  const fake: FakeProvider = {
    get issuer() {
      return issuer;
    },
    now: options.now,
    hits: new Map(),
    tokenRequests: [],
    tokenAuthorizations: [],
    signer: first,
    published: [first],
    claims: (base) => base,
    userinfo: (base) => base,
    discovery: (base) => base,
    discoveryHeaders: { 'cache-control': 'max-age=300' },
    jwksHeaders: { 'cache-control': 'max-age=300' },
    encode: undefined,
    tokenMode: 'ok',
    tokenDelayMs: 0,
    authorize(url) {
      const code = randomBytes(12).toString('base64url');
      grants.set(code, {
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri: url.searchParams.get('redirect_uri') ?? '',
        nonce: url.searchParams.get('nonce') ?? undefined,
      });
      return code;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // A reply held back past a client's deadline must not keep the server open.
        server.closeAllConnections();
      }),
  };

  const baseClaims = (grant: Grant): Claims => {
    const now = Math.floor(fake.now() / 1000);
    return {
      iss: issuer,
      aud: CLIENT_ID,
      sub: 'user-1',
      email: '  Alice@Example.COM ',
      email_verified: true,
      nonce: grant.nonce,
      iat: now,
      exp: now + 300,
    };
  };

  const routes: Record<
    string,
    (request: IncomingMessage, body: string, response: ServerResponse) => Promise<void>
  > = {
    '/.well-known/openid-configuration': async (_request, _body, response) => {
      const document = fake.discovery({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        code_challenge_methods_supported: ['S256'],
      });
      json(response, 200, document, fake.discoveryHeaders);
    },
    '/jwks': async (_request, _body, response) => {
      json(response, 200, { keys: fake.published.map((key) => key.jwk) }, fake.jwksHeaders);
    },
    '/token': async (request, body, response) => {
      const form = new URLSearchParams(body);
      fake.tokenRequests.push(form);
      fake.tokenAuthorizations.push(request.headers.authorization);
      if (fake.tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.tokenDelayMs));
      if (fake.tokenMode === 'status-500') return json(response, 500, { error: 'server_error' });
      if (fake.tokenMode === 'not-json') {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        return;
      }
      const grant = grants.get(form.get('code') ?? '');
      grants.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        grant === undefined ||
        grant.challenge !== challenge ||
        grant.redirectUri !== form.get('redirect_uri')
      ) {
        return json(response, 400, { error: 'invalid_grant' });
      }
      const claims = fake.claims(baseClaims(grant));
      const idToken =
        fake.encode === undefined
          ? await new SignJWT(claims)
              .setProtectedHeader({ alg: 'ES256', kid: fake.signer.kid })
              .sign(fake.signer.privateKey)
          : await fake.encode(claims);
      json(response, 200, {
        access_token: `at-${form.get('code')}`,
        token_type: 'Bearer',
        id_token: idToken,
      });
    },
    '/userinfo': async (request, _body, response) => {
      if (!(request.headers.authorization ?? '').startsWith('Bearer at-')) {
        return json(response, 401, { error: 'invalid_token' });
      }
      json(response, 200, fake.userinfo({ sub: 'user-1', email: 'alice@example.com', email_verified: true }));
    },
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', issuer).pathname;
      fake.hits.set(path, (fake.hits.get(path) ?? 0) + 1);
      const route = routes[path];
      if (route === undefined) return json(response, 404, { error: 'not_found' });
      route(request, Buffer.concat(chunks).toString('utf8'), response).catch((error: unknown) => {
        if (!response.headersSent) json(response, 500, { error: String(error) });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
