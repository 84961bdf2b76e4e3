// Shared by the auth suites over HTTP: an app with the auth plugin (and a few routes of its own) on an adapter
// under test, with a movable clock and a record of the auth events, and small request helpers.
import { expect } from 'vitest';
import {
  AUTH_EVENT_NAMES,
  Auth,
  authPlugin,
  route,
  type AuthOptions,
  type AuthPluginOptions,
  type Plugin,
  type Route,
  type UserSource,
} from 'svckit';
import { call, withServer, type AdapterUnderTest } from './harness.js';

export const SECRET = 'a-test-secret-that-is-32-chars-!';
export const FAST_HASH = { ln: 4, r: 8, p: 1 };
export const ALICE = { email: 'alice@example.com', password: 'correct horse battery' };

export interface AuthServer {
  url: string;
  auth: Auth;
  events: { name: string; payload: unknown }[];
  /** Moves the Auth's clock. */
  advance(ms: number): void;
}

/** Records every auth event the app's hook bus carries. */
function eventRecorder(events: AuthServer['events']): Plugin {
  return {
    name: 'record-events',
    setup(app) {
      for (const name of AUTH_EVENT_NAMES)
        app.hooks.on(name, (payload) => void events.push({ name, payload }));
    },
  };
}

const protectedRoutes: Route[] = [
  route({
    method: 'GET',
    url: '/private',
    meta: { auth: true },
    handler: ({ context }) => ({ user: context.user }),
  }),
  route({
    method: 'GET',
    url: '/public',
    meta: {},
    handler: ({ context }) => ({ user: context.user ?? null }),
  }),
  route({
    method: 'POST',
    url: '/public',
    meta: {},
    handler: ({ context }) => ({ user: context.user ?? null }),
  }),
  route({ method: 'POST', url: '/step-up', meta: { auth: true, mfa: true }, handler: () => ({ ok: true }) }),
];

export interface AuthServerOptions {
  auth?: Partial<AuthOptions>;
  plugin?: Omit<AuthPluginOptions, 'auth'>;
  plugins?: Plugin[];
}

export async function withAuth(
  adapter: AdapterUnderTest,
  body: (server: AuthServer) => Promise<void>,
  options: AuthServerOptions = {},
): Promise<void> {
  let now = 1_800_000_000_000;
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, clock: () => now, ...options.auth });
  const events: AuthServer['events'] = [];
  await withServer(
    adapter,
    {
      routes: protectedRoutes,
      plugins: [...(options.plugins ?? []), eventRecorder(events), authPlugin({ auth, ...options.plugin })],
    },
    (url) => body({ url, auth, events, advance: (ms) => void (now += ms) }),
  );
}

export function post(url: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return call(`${url}${path}`, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export const get = (url: string, path: string, headers: Record<string, string> = {}) =>
  call(`${url}${path}`, { headers });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const codeOf = (json: unknown) => (json as { error?: { code?: string } }).error?.code;

export interface SignedIn {
  user: { id: string; email: string; emailVerified: boolean };
  accessToken: string;
  refreshToken: string;
}

/** The session id a Set-Cookie header sets. */
export function sessionFrom(headers: Headers): string {
  const lines = headers.getSetCookie();
  const match = lines.map((line) => /^svc_session=([^;]*)/.exec(line)).find((found) => found?.[1]);
  if (!match?.[1]) throw new Error(`no session cookie in ${lines.join(' | ')}`);
  return decodeURIComponent(match[1]);
}

/** The Set-Cookie line that makes a browser drop the default session cookie (cookie.ts expireCookieLine). */
export const EXPIRED_COOKIE =
  'svc_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT';

export async function register(url: string, account = ALICE): Promise<SignedIn & { session: string }> {
  const response = await post(url, '/auth/register', account);
  expect(response.status, response.text).toBe(201);
  return { ...(response.json as SignedIn), session: sessionFrom(response.headers) };
}

export async function login(url: string, account = ALICE) {
  return post(url, '/auth/login', account);
}

/** A session id of the right shape whose MAC does not match (one character of the MAC changed). */
export function badSignature(id: string): string {
  const mac = id.lastIndexOf('.') + 1;
  return `${id.slice(0, mac)}${id[mac] === 'A' ? 'B' : 'A'}${id.slice(mac + 1)}`;
}

/** The header the API-key stand-in reads: the user id a key acts for. */
export const API_KEY_HEADER = 'x-test-api-key';

/**
 * A stand-in for an API-key plugin: a request with `x-test-api-key: <user id>` acts for that user through a
 * key (`context.apiKey` set, as a key plugin would, beside the key's user).
 */
export function apiKeyStandIn(users: Pick<UserSource, 'findById'>): Plugin {
  return {
    name: 'test-api-keys',
    setup(app) {
      app.metadata.add('http:enrichers', {
        name: 'test-api-keys',
        async enrich({ request, context }) {
          const userId = request.headers[API_KEY_HEADER];
          if (typeof userId !== 'string') return;
          const user = await users.findById(userId);
          if (user === null) return;
          context.apiKey = { id: 'key-1' };
          context.user = { id: user.id, email: user.email, emailVerified: user.emailVerified };
        },
      });
    },
  };
}

/** The error `build` throws (its code and message), for module settings refused at construction. */
export function thrown(build: () => unknown): { code?: string; message: string } {
  try {
    build();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected it to throw');
}
