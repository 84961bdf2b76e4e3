// A real OpenID Provider for tests: the certified `oidc-provider` package, served on 127.0.0.1 in the test
// process, with its sign-in and consent pages answered by the harness instead of a person. signIn() plays the
// browser: it follows the provider's redirects with the provider's cookies, names the account to sign in as
// when the provider asks who the user is, grants every scope and claim asked for, and stops at the redirect
// back to the client. Each signIn() is a fresh browser (no provider session carried over), so a changed
// account is read again on the next sign-in.
//
// What it configures: authorization code flow only, PKCE S256 required of every client, scopes
// `openid email profile`, `email` and `email_verified` in the ID token as well as at userinfo, ID tokens
// signed RS256 with a key made here, clients with `client_secret_basic` (the default) or
// `client_secret_post`, no refresh tokens. Its state lives in maps of its own (no timers), so close() leaves
// nothing running.
import { generateKeyPair, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OidcTestAccount {
  sub: string;
  email: string;
  emailVerified: boolean;
}

export interface OidcTestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** How the client authenticates at the token endpoint; `client_secret_basic` when left out. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcTestProvider {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  issuer: string;
  /** Adds or changes an account (e.g. change its email between two sign-ins). */
  setAccount(account: OidcTestAccount): void;
  /** Registers another client, or changes one (e.g. once the service under test knows its own callback URL). */
  addClient(client: OidcTestClient): void;
  /**
   * Plays the browser at the provider: GETs `authorizationUrl` (the URL the service under test redirected to),
   * signs in as `sub` and grants what was asked, following the provider's own redirects with its cookies, and
   * answers the final redirect to the client's redirect_uri (not fetched): the URL carrying `code` and `state`
   * (or `error`). Rejects when `sub` is no account, or when the provider answers with a page instead of a
   * redirect (e.g. an unknown client or redirect_uri).
   */
  signIn(authorizationUrl: string | URL, sub: string): Promise<URL>;
  close(): Promise<void>;
}

export interface OidcTestProviderOptions {
  accounts?: OidcTestAccount[];
  clients?: OidcTestClient[];
}

// ---- The part of oidc-provider's API the harness uses (the package ships no types). ----

type ProviderClaims = Record<string, unknown> & { sub: string };

interface ProviderAccount {
  accountId: string;
  claims(use: string, scope: string): Promise<ProviderClaims>;
}

interface ProviderAdapter {
  upsert(id: string, payload: StoredPayload, expiresIn: number): Promise<void>;
  find(id: string): Promise<StoredPayload | undefined>;
  findByUserCode(userCode: string): Promise<StoredPayload | undefined>;
  findByUid(uid: string): Promise<StoredPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

type StoredPayload = Record<string, unknown>;

interface ProviderErrorOut {
  error: string;
  error_description?: string;
}

/** The koa context, as far as renderError writes to it. */
interface ProviderContext {
  type: string;
  body: unknown;
}

interface ProviderConfiguration {
  adapter: (model: string) => ProviderAdapter;
  findAccount: (ctx: unknown, sub: string) => Promise<ProviderAccount | undefined>;
  jwks: { keys: JsonWebKey[] };
  cookies: { keys: string[] };
  claims: Record<string, string[]>;
  scopes: string[];
  conformIdTokenClaims: boolean;
  pkce: { required: () => boolean };
  features: Record<string, { enabled: boolean }>;
  interactions: { url: (ctx: unknown, interaction: { uid: string }) => Promise<string> };
  responseTypes: string[];
  clientBasedCORS: () => boolean;
  renderError: (ctx: ProviderContext, out: ProviderErrorOut, error: unknown) => Promise<void>;
  ttl: Record<string, number>;
}

interface InteractionPrompt {
  name: string;
  details: {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
}

interface InteractionDetails {
  uid: string;
  prompt: InteractionPrompt;
  params: Record<string, unknown> & { client_id: string };
  grantId?: string;
  session?: { accountId: string };
}

interface ProviderGrant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

interface ProviderGrantClass {
  new (properties: { accountId: string; clientId: string }): ProviderGrant;
  find(id: string): Promise<ProviderGrant | undefined>;
}

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: ProviderGrantClass;
}

type ProviderClass = new (issuer: string, configuration: ProviderConfiguration) => ProviderInstance;

// ---- Loading the package and the signing key, once per process. ----

const INTERACTION_PATH = '/interaction/';
/** The query parameter signIn() adds to the interaction URL to say who signs in. */
const SUB_PARAM = 'sub';
const MAX_REDIRECTS = 20;

let loadedProvider: Promise<ProviderClass> | undefined;

/**
 * oidc-provider 9 prints "Unsupported runtime" on import under Node 20 (it targets Node 22 LTS; it runs on
 * 20.19, which svckit supports): that one notice is kept out of the test output.
 */
function loadProvider(): Promise<ProviderClass> {
  loadedProvider ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('Unsupported runtime')) return;
      warn(...args);
    };
    try {
      // A specifier in a variable: the package has no types, the shape above is what the harness relies on.
      const specifier = 'oidc-provider';
      const loaded = (await import(specifier)) as { default: ProviderClass };
      return loaded.default;
    } finally {
      console.warn = warn;
    }
  })();
  return loadedProvider;
}

let signingKey: Promise<JsonWebKey> | undefined;

/** One RSA key per process: making one costs tens of milliseconds, and each provider only needs its own kid. */
function loadSigningKey(): Promise<JsonWebKey> {
  signingKey ??= new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (error, _publicKey, privateKey) => {
      if (error) reject(error);
      else resolve(privateKey.export({ format: 'jwk' }));
    });
  });
  return signingKey;
}

// ---- Storage: the provider's models in maps, expiry checked on read (no timers). ----

interface Stored {
  payload: StoredPayload;
  expiresAt: number;
}

function createStorage(clients: Map<string, OidcTestClient>): (model: string) => ProviderAdapter {
  const records = new Map<string, Stored>();
  const read = (key: string): StoredPayload | undefined => {
    const stored = records.get(key);
    if (!stored) return undefined;
    if (stored.expiresAt <= Date.now()) {
      records.delete(key);
      return undefined;
    }
    return stored.payload;
  };
  return (model) => {
    const keyOf = (id: string) => `${model}:${id}`;
    const findBy = (field: string, value: string) => {
      for (const [key, stored] of records) {
        if (key.startsWith(`${model}:`) && stored.payload[field] === value) return read(key);
      }
      return undefined;
    };
    return {
      async upsert(id, payload, expiresIn) {
        const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY;
        records.set(keyOf(id), { payload, expiresAt });
      },
      async find(id) {
        // Clients come from the harness's own list, so addClient() needs no restart.
        if (model === 'Client') {
          const client = clients.get(id);
          return client ? clientMetadata(client) : undefined;
        }
        return read(keyOf(id));
      },
      async findByUserCode(userCode) {
        return findBy('userCode', userCode);
      },
      async findByUid(uid) {
        return findBy('uid', uid);
      },
      async consume(id) {
        const stored = read(keyOf(id));
        if (stored) stored.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        records.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const [key, stored] of records) {
          if (stored.payload.grantId === grantId) records.delete(key);
        }
      },
    };
  };
}

function clientMetadata(client: OidcTestClient): StoredPayload {
  return {
    client_id: client.clientId,
    client_secret: client.clientSecret,
    redirect_uris: [...client.redirectUris],
    token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  };
}

// ---- The interaction pages: sign in as the account signIn() names, then grant what was asked. ----

async function answerInteraction(
  provider: ProviderInstance,
  accounts: Map<string, OidcTestAccount>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params } = details;
  if (prompt.name === 'login') {
    const sub = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get(SUB_PARAM);
    if (sub === null || !accounts.has(sub)) {
      res.statusCode = 400;
      res.setHeader('content-type', 'text/plain');
      res.end(`no test account ${JSON.stringify(sub)} to sign in as`);
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: sub } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (prompt.name === 'consent') {
    const accountId = details.session?.accountId;
    if (accountId === undefined) throw new Error('consent asked before any sign-in');
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId, clientId: params.client_id });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  throw new Error(`the harness does not answer the "${prompt.name}" prompt`);
}

// ---- The browser side of signIn(): a cookie jar for the provider's origin. ----

class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Keeps what the response sets; a cookie set empty or already expired is the provider clearing it. */
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      const expires = attributes.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('expires='));
      const expired = expires !== undefined && Date.parse(expires.slice('expires='.length)) <= Date.now();
      if (value === '' || expired) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  /** All of them on every request: the names differ per purpose, so sending one where it is not read is harmless. */
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

// ---- The provider. ----

export async function startOidcProvider(options: OidcTestProviderOptions = {}): Promise<OidcTestProvider> {
  const [Provider, privateJwk] = await Promise.all([loadProvider(), loadSigningKey()]);
  const accounts = new Map<string, OidcTestAccount>();
  const clients = new Map<string, OidcTestClient>();
  for (const account of options.accounts ?? []) accounts.set(account.sub, { ...account });
  for (const client of options.clients ?? []) clients.set(client.clientId, { ...client });

  // The issuer names the port, so the server listens before the provider exists (and before anyone knows
  // the port): its request handler is added once the provider is made.
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    adapter: createStorage(clients),
    async findAccount(_ctx, sub) {
      if (!accounts.has(sub)) return undefined;
      return {
        accountId: sub,
        // Read when a token is made, so setAccount() shows in the next ID token and at userinfo.
        async claims() {
          const account = accounts.get(sub);
          if (!account) return { sub };
          return { sub, email: account.email, email_verified: account.emailVerified };
        },
      };
    },
    jwks: { keys: [{ ...privateJwk, kid: `test-${randomUUID()}`, alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    // Scope-requested claims in the ID token too, not only at userinfo.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: false } },
    interactions: { url: async (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    responseTypes: ['code'],
    clientBasedCORS: () => true,
    async renderError(ctx, out) {
      ctx.type = 'json';
      ctx.body = out;
    },
    // Set, so the provider does not print that its defaults should be changed.
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
  });
  const providerCallback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith(INTERACTION_PATH)) {
      answerInteraction(provider, accounts, req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    providerCallback(req, res);
  });

  const isRedirectUri = (url: URL): boolean => {
    const target = `${url.origin}${url.pathname}`;
    for (const client of clients.values()) {
      if (client.redirectUris.some((uri) => target === uri.split(/[?#]/)[0])) return true;
    }
    return false;
  };

  return {
    issuer,
    setAccount(account) {
      accounts.set(account.sub, { ...account });
    },
    addClient(client) {
      clients.set(client.clientId, { ...client });
    },
    async signIn(authorizationUrl, sub) {
      if (!accounts.has(sub)) {
        throw new Error(`signIn: no test account with sub ${JSON.stringify(sub)} (setAccount() it first)`);
      }
      let url = new URL(authorizationUrl);
      if (url.origin !== issuer) {
        throw new Error(`signIn: ${url.href} is not at the test provider ${issuer}`);
      }
      const jar = new CookieJar();
      for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
        if (url.pathname.startsWith(INTERACTION_PATH)) url.searchParams.set(SUB_PARAM, sub);
        const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
        jar.store(response);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || location === null) {
          const body = await response.text();
          throw new Error(`signIn: the provider answered ${response.status} at ${url.pathname}: ${body}`);
        }
        await response.body?.cancel();
        const next = new URL(location, url);
        // Leaving the provider, or at a client's redirect_uri: this is the redirect to the client.
        if (next.origin !== issuer || isRedirectUri(next)) return next;
        url = next;
      }
      throw new Error(`signIn: more than ${MAX_REDIRECTS} redirects at the provider`);
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive: close them, or close() waits for them to time out.
        server.closeAllConnections();
      });
    },
  };
}
