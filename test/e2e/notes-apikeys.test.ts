// The reference service with API keys, as a user and their agents use it: a signed-in user creates keys
// through the generated client (POST /apikeys), a key holding notes:read reads notes but cannot write them, a
// key holding notes:write writes, and the official MCP SDK client connected with a key is shown only the note
// tools its key may call, and is refused the others.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../generated/client.js';
import { loadConfig } from '../../generated/config.js';
import type { App } from '../../runtime/app/app.js';
import { buildApp } from '../../src/app.js';
import { createDatabase, type TestDatabase } from '../backends.js';

const SECRET = 'e2e-notes-apikeys-secret-0123456789abcdef';
const READ_TOOLS = ['get_notes', 'get_notes_by_id'];
const WRITE_TOOLS = ['post_notes'];

let database: TestDatabase;
let app: App;
let url: string;
let readKey: string;
let writeKey: string;

beforeAll(async () => {
  database = await createDatabase();
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    SVC_SECRET: SECRET,
    DATABASE_URL: database.url,
    REDIS_URL: '',
    RATE_LIMIT: '100000',
  });
  app = await buildApp(config);
  ({ url } = await app.listen({ port: 0, host: '127.0.0.1' }));
  const anonymous = createClient({ baseUrl: url, retry: false });
  const registered = await anonymous.register({
    body: { email: 'owner@example.com', password: 'a long enough password' },
  });
  if (!registered.ok) throw new Error(`register failed: ${registered.status}`);
  const owner = createClient({
    baseUrl: url,
    headers: { authorization: `Bearer ${registered.data.accessToken}` },
    retry: false,
  });
  const read = await owner.apiKeyCreate({ body: { name: 'reader', scopes: ['notes:read'] } });
  const write = await owner.apiKeyCreate({ body: { name: 'writer', scopes: ['notes:write'] } });
  if (!read.ok || !write.ok) throw new Error('creating the keys failed');
  readKey = read.data.key;
  writeKey = write.data.key;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await database?.drop();
});

const withKey = (key: string) => createClient({ baseUrl: url, headers: { 'x-api-key': key }, retry: false });

describe('the reference service with API keys', () => {
  test('a notes:write key writes, a notes:read key reads and is refused writing', async () => {
    const created = await withKey(writeKey).createNote({ body: { title: 'from the writer' } });
    expect(created.ok && created.data.title).toBe('from the writer');
    const listed = await withKey(readKey).listNotes({});
    expect(listed.ok && listed.data.items.map((note) => note.title)).toEqual(['from the writer']);
    const refused = await withKey(readKey).createNote({ body: { title: 'from the reader' } });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && [refused.status, refused.error?.code]).toEqual([403, 'AUTH_SCOPE_REQUIRED']);
    const unread = await withKey(writeKey).listNotes({});
    expect(!unread.ok && unread.error?.code).toBe('AUTH_SCOPE_REQUIRED');
  });

  test("serves the key-management page, offering the spec's scopes, under its own locked-down CSP", async () => {
    const page = await fetch(`${url}/apikeys/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*script-src 'sha256-/);
    const html = await page.text();
    for (const scope of ['notes:read', 'notes:write']) expect(html).toContain(scope);
  });

  test('a key never creates a key', async () => {
    const minted = await withKey(writeKey).apiKeyCreate({ body: { scopes: ['notes:read'] } });
    expect(!minted.ok && [minted.status, minted.error?.code]).toEqual([403, 'AUTH_APIKEY_NOT_ALLOWED']);
  });

  test('an agent connected with a key sees and calls only the tools its scopes allow', async () => {
    const agent = async (key: string) => {
      const client = new Client({ name: 'key-agent', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { 'x-api-key': key } },
        }),
      );
      return client;
    };
    const reader = await agent(readKey);
    const writer = await agent(writeKey);
    try {
      const names = async (client: Client) =>
        (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.includes('notes'));
      expect((await names(reader)).sort()).toEqual(READ_TOOLS);
      expect((await names(writer)).sort()).toEqual(WRITE_TOOLS);
      const refused = await reader.callTool({ name: 'post_notes', arguments: { title: 'no' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.structuredContent ?? refused.content)).toContain('AUTH_SCOPE_REQUIRED');
      const listed = await reader.callTool({ name: 'get_notes', arguments: {} });
      expect(listed.isError).toBeFalsy();
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
