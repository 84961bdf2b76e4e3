// The apikeys bench: a GET route behind `meta: { auth: true, scopes: ['notes:read'] }` called with a user-bound
// API key (bench/servers/svc-fastify-apikey.ts) against the same route anonymous (bench/servers/svc-fastify.ts,
// no auth plugin). Both are sent the same request but for the key's value: the baseline gets a key of the
// same form and length that nothing reads, as the auth bench sends its bearer token to both sides. Before the
// load, each start of the key server checks that its route refuses a request without the key or with another
// one, and answers the greeting to the key (autocannon counts only 2xx, so a route that ignored the key would
// otherwise pass).
import { isDeepStrictEqual } from 'node:util';
import type { HttpPair } from './http.js';
import { readBenchApiKey } from './servers/svc-fastify-apikey-key.js';
import { GREETING } from './servers/shared.js';

export const APIKEYS_ID = 'apikeys';

const KEY_HEADER = 'x-api-key';
/** Well-formed (`mk_live_` and 43 base64url characters) and issued by no server. */
const UNREAD_API_KEY = `mk_live_${'A'.repeat(43)}`;
export const API_KEY_ROUTE = 'GET /hello (JSON), key in x-api-key';

async function getHello(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/hello`, { headers });
  return { status: response.status, body: await response.json() };
}

/** Runner side (the workload's `prepare`): the key server's key, once its route is seen to require it. */
export async function benchApiKeyHeaders(serverUrl: string): Promise<Record<string, string>> {
  const key = readBenchApiKey(serverUrl);
  const anonymous = await getHello(serverUrl, {});
  const unknown = await getHello(serverUrl, { [KEY_HEADER]: UNREAD_API_KEY });
  const keyed = await getHello(serverUrl, { [KEY_HEADER]: key });
  if (anonymous.status !== 401 || unknown.status !== 401) {
    throw new Error(
      `apikeys: the key route answered ${anonymous.status} without a key, ${unknown.status} to an unknown one`,
    );
  }
  if (keyed.status !== 200 || !isDeepStrictEqual(keyed.body, GREETING)) {
    throw new Error(
      `apikeys: the key route answered ${keyed.status} ${JSON.stringify(keyed.body)} to its key`,
    );
  }
  return { [KEY_HEADER]: key };
}

export const APIKEYS_PAIR: HttpPair = {
  id: APIKEYS_ID,
  title:
    "svc on Fastify: an API-key-authenticated request (`meta: { auth: true, scopes: ['notes:read'] }`, user-bound key in `x-api-key`, in-memory stores) vs the same route anonymous (target ≥ 85 %)",
  plain: 'bench/servers/svc-fastify.ts',
  svc: 'bench/servers/svc-fastify-apikey.ts',
  labels: { plain: 'svc, anonymous', svc: 'svc + auth + API key' },
  workloads: [
    {
      name: API_KEY_ROUTE,
      method: 'GET',
      path: '/hello',
      headers: { [KEY_HEADER]: UNREAD_API_KEY },
      svc: { method: 'GET', path: '/hello', prepare: benchApiKeyHeaders },
    },
  ],
};

/** What the two sides do per request, for the section. */
export function apiKeysNote(): string {
  return [
    'Both servers serve GET /hello and are sent the same request but for the value of `x-api-key`:',
    '',
    '- **svc, anonymous** (`bench/servers/svc-fastify.ts`): no auth plugin, the route without auth meta; the',
    '  header carries a well-formed key (same length) that nothing reads.',
    '- **svc + auth + API key** (`bench/servers/svc-fastify-apikey.ts`): `authPlugin` and `apiKeyPlugin` over',
    "  `new Auth({ secret, apiKeys: new ApiKeys({ scopes: ['notes:read'] }) })`, every store the in-memory",
    "  default; the route has `meta: { auth: true, scopes: ['notes:read'] }`. The header carries the key the",
    "  server issued at start for its one user (`scopes: ['notes:read']`, `userId`): per request the auth",
    '  enricher finds no bearer or session, the key enricher hashes the key (SHA-256), finds it in the key',
    '  store and the user in the user store, and the guards check `auth` and the scopes.',
  ].join('\n');
}
