// Agent tools and API keys: tools/list shows a key only the tools its scopes reach, and a call of a tool the
// key's scopes do not reach is refused as the guard refuses it over HTTP (AUTH_SCOPE_REQUIRED), whichever
// header carries the key. One adapter: the tool layer sits above the adapters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys, apiKeyPlugin, Auth, authPlugin, mcpPlugin, mcpRoutes, route, type Route } from 'svckit';
import { ALICE, bearer, FAST_HASH, post, register, SECRET } from './auth-harness.js';
import { adapters, type AdapterUnderTest } from './harness.js';
import { envelope, openSession, resultOf, toolResult } from './mcp-helpers.js';

const adapter = adapters[0] as AdapterUnderTest;

const routes: Route[] = [
  route({
    method: 'GET',
    url: '/notes',
    meta: { mcp: true, scopes: ['notes:read'] },
    handler: ({ context }) => ({ reader: (context.user as { id: string }).id }),
  }),
  route({
    method: 'POST',
    url: '/notes',
    meta: { mcp: true, scopes: ['notes:write'] },
    handler: ({ context }) => ({ writer: (context.user as { id: string }).id }),
  }),
];

const toolNames = async (headers: Record<string, string>) => {
  const session = await openSession(server.url, { headers });
  const { tools } = resultOf(await session.list());
  return (tools as { name: string }[]).map((tool) => tool.name);
};

let server: {
  url: string;
  owner: string;
  ownerToken: string;
  readKey: string;
  allKey: string;
  close(): Promise<void>;
};

beforeAll(async () => {
  const auth = new Auth({
    secret: SECRET,
    passwordHash: FAST_HASH,
    apiKeys: new ApiKeys({ scopes: ['*', 'notes:read', 'notes:write'] }),
  });
  const running = await adapter.start({
    routes: [...routes, ...mcpRoutes()],
    plugins: [authPlugin({ auth }), apiKeyPlugin({ auth }), mcpPlugin({ reportError: false })],
  });
  const { url } = running;
  const signed = await register(url, ALICE);
  const key = async (scopes: string[]) => {
    const created = await post(url, '/apikeys', { scopes }, bearer(signed.accessToken));
    expect(created.status, created.text).toBe(201);
    return (created.json as { key: string }).key;
  };
  server = {
    url,
    owner: signed.user.id,
    ownerToken: signed.accessToken,
    readKey: await key(['notes:read']),
    allKey: await key(['*']),
    close: running.close,
  };
});

afterAll(() => server.close());

describe('agent tools and API keys', () => {
  it('tools/list shows a notes:read key the read tool only, a * key both', async () => {
    expect(await toolNames({ 'x-api-key': server.readKey })).toEqual(['get_notes']);
    expect(await toolNames({ authorization: `Bearer ${server.readKey}` })).toEqual(['get_notes']);
    expect(await toolNames({ 'x-api-key': server.allKey })).toEqual(['get_notes', 'post_notes']);
    // A signed-in user acts by their own rights; an anonymous caller reaches neither.
    expect(await toolNames(bearer(server.ownerToken))).toEqual(['get_notes', 'post_notes']);
    expect(await toolNames({})).toEqual([]);
  });

  it('calling the write tool with the read key is refused with AUTH_SCOPE_REQUIRED; the read tool runs as the key’s user', async () => {
    const readKeyHeaders: Record<string, string>[] = [
      { 'x-api-key': server.readKey },
      bearer(server.readKey),
    ];
    for (const headers of readKeyHeaders) {
      const session = await openSession(server.url, { headers });
      const refused = toolResult(await session.call('post_notes', {}));
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject(envelope('AUTH_SCOPE_REQUIRED', expect.any(String)));
      const read = toolResult(await session.call('get_notes', {}));
      expect(read.isError).toBeUndefined();
      expect(read.structuredContent).toEqual({ reader: server.owner });
    }
    const session = await openSession(server.url, { headers: { 'x-api-key': server.allKey } });
    expect(toolResult(await session.call('post_notes', {})).structuredContent).toEqual({
      writer: server.owner,
    });
  });
});
