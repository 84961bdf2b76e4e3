// The reference service's notes live in its database (migrations/0001-notes.sql, through a repository on
// stores.sql), as built by src/app.ts from the configuration: on PGlite and on PostgreSQL they survive a
// restart and come back to the same user; two apps on one PostgreSQL database are one service for notes
// (created on one, listed, paged and changed on the other); with `stores.database: memory` they live in an
// in-memory database, gone at restart.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../generated/client.js';
import { loadConfig } from '../../generated/config.js';
import type { App } from '../../runtime/app/app.js';
import { buildApp } from '../../src/app.js';
import { createDatabase, type TestDatabase } from '../backends.js';

const SECRET = 'e2e-notes-database-secret-0123456789abcdef';
const PASSWORD = 'a long enough password';

type Client = ReturnType<typeof createClient>;

interface Running {
  app: App;
  url: string;
  anonymous: Client;
}

const running = new Set<App>();

/** The reference app on `database`, listening on a free loopback port. */
async function start(database: string): Promise<Running> {
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    SVC_SECRET: SECRET,
    DATABASE_URL: database,
    REDIS_URL: '',
    RATE_LIMIT: '100000',
  });
  const app = await buildApp(config);
  running.add(app);
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, anonymous: createClient({ baseUrl: url, retry: false }) };
}

async function stop(service: Running): Promise<void> {
  running.delete(service.app);
  await service.app.close();
}

afterAll(async () => {
  for (const app of running) await app.close();
});

function signedIn(service: Running, accessToken: string): Client {
  return createClient({
    baseUrl: service.url,
    headers: { authorization: `Bearer ${accessToken}` },
    retry: false,
  });
}

async function register(service: Running, email: string): Promise<string> {
  const answer = await service.anonymous.register({ body: { email, password: PASSWORD } });
  if (!answer.ok) throw new Error(`register failed: ${answer.status}`);
  return answer.data.accessToken;
}

async function login(service: Running, email: string): Promise<string> {
  const answer = await service.anonymous.login({ body: { email, password: PASSWORD } });
  if (!answer.ok) throw new Error(`login failed: ${answer.status}`);
  return answer.data.accessToken;
}

async function created(client: Client, title: string, body?: string) {
  const answer = await client.createNote({ body: body === undefined ? { title } : { title, body } });
  if (!answer.ok) throw new Error(`create failed: ${answer.status}`);
  return answer.data;
}

async function titles(client: Client): Promise<string[]> {
  const answer = await client.listNotes({ query: { limit: 100 } });
  if (!answer.ok) throw new Error(`list failed: ${answer.status}`);
  return answer.data.items.map((note) => note.title);
}

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

const backends: [string, () => Promise<string>][] = [
  [
    'PGlite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-notes-'));
      temp.push(dir);
      return `pglite:${join(dir, 'data')}`;
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await createDatabase();
      databases.push(database);
      return database.url;
    },
  ],
];

describe.each(backends)('notes on %s', (_name, newDatabase) => {
  test('survive a restart and come back to the same user, in the same order', async () => {
    const database = await newDatabase();
    const first = await start(database);
    const email = `kept-${Date.now()}@example.com`;
    const mine = signedIn(first, await register(first, email));
    const older = await created(mine, 'Older', 'written first');
    const newer = await created(mine, 'Newer');
    await stop(first);

    const second = await start(database);
    // Signing in again works (the account was kept too); the note reads back as it was created.
    const again = signedIn(second, await login(second, email));
    const read = await again.getNote({ params: { id: older.id } });
    expect(read.ok && read.data).toEqual(older);
    expect(await titles(again)).toEqual(['Newer', 'Older']);
    // Paging resumes across the restart: a cursor is a position in the data, not in a process.
    const page = await again.listNotes({ query: { limit: 1 } });
    if (!page.ok || page.data.nextCursor === null) throw new Error('expected a next page');
    expect(page.data.items.map((note) => note.id)).toEqual([newer.id]);
    // Still nobody else's.
    const other = signedIn(second, await register(second, `other-${Date.now()}@example.com`));
    expect(await titles(other)).toEqual([]);
    expect((await other.getNote({ params: { id: older.id } })).status).toBe(404);
    await stop(second);
  });
});

describe('two apps on one PostgreSQL database', () => {
  let a: Running;
  let b: Running;

  beforeAll(async () => {
    const database = await backends[1]![1]();
    // Started together: their migrations meet on the advisory lock.
    [a, b] = await Promise.all([start(database), start(database)]);
  });

  test('a note created on one is listed, paged, changed and deleted on the other', async () => {
    const email = `shared-${Date.now()}@example.com`;
    const onA = signedIn(a, await register(a, email));
    const onB = signedIn(b, await login(b, email));
    const notes = [];
    for (const title of ['n1', 'n2', 'n3']) notes.push(await created(onA, title));
    expect(await titles(onB)).toEqual(['n3', 'n2', 'n1']);

    // A cursor from A serves on B.
    const firstPage = await onA.listNotes({ query: { limit: 2 } });
    if (!firstPage.ok || firstPage.data.nextCursor === null) throw new Error('expected a next page');
    const rest = await onB.listNotes({ query: { limit: 2, cursor: firstPage.data.nextCursor } });
    expect(rest.ok && rest.data).toEqual({ items: [notes[0]], nextCursor: null });

    const changed = await onB.updateNote({ params: { id: notes[1]!.id }, body: { body: 'from B' } });
    expect(changed.ok && changed.data).toEqual({ ...notes[1], body: 'from B' });
    const read = await onA.getNote({ params: { id: notes[1]!.id } });
    expect(read.ok && read.data.body).toBe('from B');

    expect((await onA.deleteNote({ params: { id: notes[2]!.id } })).status).toBe(204);
    expect((await onB.getNote({ params: { id: notes[2]!.id } })).status).toBe(404);
    expect(await titles(onB)).toEqual(['n2', 'n1']);
  });

  test('a forged cursor still answers NOTE_CURSOR_INVALID', async () => {
    const client = signedIn(a, await register(a, `cursor-${Date.now()}@example.com`));
    const forged = Buffer.from(JSON.stringify(['-271821-04-20T00:00:00.000Z', randomUUID()])).toString(
      'base64url',
    );
    for (const cursor of ['bm90LWEtY3Vyc29y', forged]) {
      const answer = await client.listNotes({ query: { cursor } });
      expect(answer.status).toBe(400);
      expect(!answer.ok && answer.error.code).toBe('NOTE_CURSOR_INVALID');
    }
  });
});

test('with stores.database memory, notes live in an in-memory database: they work, and a restart starts empty', async () => {
  const first = await start('memory');
  const email = `memory-${Date.now()}@example.com`;
  const client = signedIn(first, await register(first, email));
  await created(client, 'Fleeting');
  expect(await titles(client)).toEqual(['Fleeting']);
  await stop(first);
  const second = await start('memory');
  // Accounts are in memory too: a new one, and no notes.
  const fresh = signedIn(second, await register(second, email));
  expect(await titles(fresh)).toEqual([]);
  await stop(second);
});
