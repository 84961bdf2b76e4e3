// repository() (svckit/data) on both SQL backends, PGlite in memory and a real PostgreSQL (a database of this
// file's own, dropped at the end): the statements an application's table needs, typed, scoped by owner so
// another owner's row is as absent as a missing one, paged newest first by an opaque keyset cursor that a
// forged or foreign cursor cannot turn into a wrong page, and names checked before any SQL is written.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionError, SvcError } from 'svckit';
import { repository, snakeCase, type ScopedRepository } from 'svckit/data';
import { openSqlClient, type SqlClient, type SqlQueryable } from 'svckit/stores';
import { createDatabase, type TestDatabase } from '../backends.js';

interface Note {
  id: string;
  owner: string;
  title: string;
  body: string | null;
  createdAt: Date;
  wordCount: number;
}

const NOTES = `CREATE TABLE notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner text NOT NULL,
  title text NOT NULL,
  body text,
  created_at timestamptz NOT NULL DEFAULT '2030-01-01T00:00:00Z',
  word_count integer NOT NULL DEFAULT 0
);
CREATE TABLE tags (label_id bigint PRIMARY KEY, label text NOT NULL);
CREATE TABLE events (id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), label text NOT NULL);
CREATE TABLE big (id bigint PRIMARY KEY, label text NOT NULL);
CREATE TABLE accounts (id bigint PRIMARY KEY, owner uuid NOT NULL, n integer NOT NULL DEFAULT 0)`;

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (offsetMs: number) => new Date(T0 + offsetMs);

function notesOf(db: SqlQueryable): ScopedRepository<Note> {
  return repository<Note>(db, {
    table: 'notes',
    columns: ['id', 'owner', 'title', 'body', 'createdAt', 'wordCount'],
    scope: 'owner',
    order: { by: 'createdAt', direction: 'desc' },
  });
}

async function rejection(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof SvcError)) throw new Error(`expected a SvcError, got ${String(error)}`);
  return error;
}

const backends: [string, () => Promise<{ client: SqlClient; drop(): Promise<void> }>][] = [
  [
    'PGlite',
    async () => {
      const client = await openSqlClient('pglite:memory');
      return { client, drop: async () => undefined };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database: TestDatabase = await createDatabase();
      const client = await openSqlClient(database.url);
      return { client, drop: () => database.drop() };
    },
  ],
];

describe.each(backends)('repository() on %s', (_name, open) => {
  let client: SqlClient;
  let drop: () => Promise<void>;
  let notes: ScopedRepository<Note>;

  beforeAll(async () => {
    ({ client, drop } = await open());
    await client.query(NOTES);
    notes = notesOf(client);
  });

  afterAll(async () => {
    await client?.close();
    await drop?.();
  });

  it('inserts a row, defaults filling what is left out, and reads it back typed, camelCase from snake_case', async () => {
    const owner = randomUUID();
    const created = await notes.insert(owner, { title: 'First', body: null, createdAt: at(0) });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      owner,
      title: 'First',
      body: null,
      createdAt: at(0),
      wordCount: 0,
    });
    const stored = await client.query<{ created_at: Date; word_count: number }>(
      'SELECT created_at, word_count FROM notes WHERE id = $1',
      [created.id],
    );
    expect(stored.rows).toEqual([{ created_at: at(0), word_count: 0 }]);
    const read = await notes.get(owner, created.id);
    // The Row type flows into results: a Date, not a string.
    expect(read?.createdAt.getTime()).toBe(T0);
    expect(read).toEqual(created);
  });

  it("another owner's row is as absent as a missing one: get, update, delete and list never reach it", async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    const note = await notes.insert(alice, { title: 'Private', createdAt: at(1) });
    expect(await notes.get(bob, note.id)).toBeUndefined();
    expect(await notes.get(bob, randomUUID())).toBeUndefined();
    expect(await notes.update(bob, note.id, { title: 'Stolen' })).toBeUndefined();
    expect(await notes.delete(bob, note.id)).toBe(false);
    expect(await notes.list(bob, { limit: 10 })).toEqual({ items: [], nextCursor: null });
    // Untouched for its owner.
    expect(await notes.get(alice, note.id)).toMatchObject({ title: 'Private' });
    expect((await notes.list(alice, { limit: 10 })).items.map((item) => item.id)).toEqual([note.id]);
  });

  it('update changes the given properties only and answers the row; delete answers whether it deleted', async () => {
    const owner = randomUUID();
    const note = await notes.insert(owner, { title: 'Draft', body: 'text', createdAt: at(2), wordCount: 1 });
    const changed = await notes.update(owner, note.id, { title: 'Final', body: undefined });
    expect(changed).toEqual({ ...note, title: 'Final' });
    expect(await notes.update(owner, note.id, { wordCount: 2, body: null })).toEqual({
      ...note,
      title: 'Final',
      body: null,
      wordCount: 2,
    });
    // An empty patch writes nothing and answers the row as it is.
    expect(await notes.update(owner, note.id, {})).toMatchObject({ title: 'Final', wordCount: 2 });
    expect(await notes.update(owner, randomUUID(), { title: 'x' })).toBeUndefined();
    expect(await notes.delete(owner, note.id)).toBe(true);
    expect(await notes.delete(owner, note.id)).toBe(false);
    expect(await notes.get(owner, note.id)).toBeUndefined();
  });

  it('values travel as parameters: text that looks like SQL is stored as written', async () => {
    const owner = `o'wner"; DROP TABLE notes; --`;
    const title = `'); DELETE FROM notes; --`;
    const note = await notes.insert(owner, { title, createdAt: at(3) });
    expect(await notes.get(owner, note.id)).toMatchObject({ owner, title });
    expect((await client.query('SELECT 1 FROM notes')).rowCount).toBeGreaterThan(0);
  });

  it('pages newest first, ties by id, each row once, with an opaque cursor', async () => {
    const owner = randomUUID();
    // Three rows share one instant: the id decides between them.
    const offsets = [10, 20, 20, 20, 30, 40, 50];
    const inserted: Note[] = [];
    for (const [index, offset] of offsets.entries()) {
      inserted.push(await notes.insert(owner, { title: `n${index}`, createdAt: at(offset) }));
    }
    const expected = [...inserted]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((note) => note.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await notes.list(owner, cursor === undefined ? { limit: 2 } : { limit: 2, cursor });
      expect(result.items.length).toBeLessThanOrEqual(2);
      seen.push(...result.items.map((note) => note.id));
      if (result.nextCursor === null) break;
      expect(result.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(expected);
    // An exact last page says so: no cursor to an empty page.
    expect((await notes.list(owner, { limit: offsets.length })).nextCursor).toBeNull();
    // `after` a row starts where that row's cursor would.
    const afterThird = await notes.list(owner, {
      limit: 2,
      after: inserted.find((n) => n.id === expected[2]),
    });
    expect(afterThird.items.map((note) => note.id)).toEqual(expected.slice(3, 5));
  });

  it('ascending order by id when no order is given', async () => {
    const tags = repository<{ labelId: number; label: string }>(client, {
      table: 'tags',
      columns: ['labelId', 'label'],
      id: 'labelId',
    });
    for (const labelId of [3, 1, 2]) await tags.insert({ labelId, label: `t${labelId}` });
    const first = await tags.list({ limit: 2 });
    expect(first.items).toEqual([
      { labelId: 1, label: 't1' },
      { labelId: 2, label: 't2' },
    ]);
    const rest = await tags.list({ limit: 2, cursor: first.nextCursor! });
    expect(rest).toEqual({ items: [{ labelId: 3, label: 't3' }], nextCursor: null });
    expect(await tags.get(2)).toEqual({ labelId: 2, label: 't2' });
  });

  it('pages rows apart by microseconds only, both ways, ties by id, each row once; `after` a row too', async () => {
    // Seven rows within one millisecond (a Date holds .123 for each), two pairs tied, and one at now().
    await client.query(`INSERT INTO events (id, at, label) VALUES
      (1, '2026-01-01 00:00:00.1231+00', 'a'), (3, '2026-01-01 00:00:00.1232+00', 'c'),
      (2, '2026-01-01 00:00:00.1232+00', 'b'), (4, '2026-01-01 00:00:00.123301+00', 'd'),
      (6, '2026-01-01 00:00:00.1234+00', 'f'), (5, '2026-01-01 00:00:00.1234+00', 'e'),
      (7, '2026-01-01 00:00:00.1235+00', 'g')`);
    await client.query(`INSERT INTO events (id, label) VALUES (8, 'now')`);
    type Event = { id: number; at: Date; label: string };
    const ordered = await client.query<{ label: string }>('SELECT label FROM events ORDER BY at, id');
    const ascending = ordered.rows.map((row) => row.label);
    expect(ascending.filter((label) => label !== 'now')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    for (const direction of ['asc', 'desc'] as const) {
      const events = repository<Event>(client, {
        table: 'events',
        columns: ['id', 'at', 'label'],
        order: { by: 'at', direction },
      });
      const expected = direction === 'asc' ? ascending : [...ascending].reverse();
      for (const limit of [1, 2, 3]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let page = 0; page <= ascending.length; page++) {
          const result: { items: Event[]; nextCursor: string | null } = await events.list({ limit, cursor });
          seen.push(...result.items.map((event) => event.label));
          cursor = result.nextCursor;
          if (cursor === null) break;
        }
        expect({ direction, limit, seen, more: cursor !== null }).toEqual({
          direction,
          limit,
          seen: expected,
          more: false,
        });
      }
      // The row held in JavaScript lost its microseconds; the page after it still starts right after it.
      const b = (await events.get(2))!;
      expect(b.at.toISOString()).toBe('2026-01-01T00:00:00.123Z');
      const next = await events.list({ limit: 2, after: b });
      expect(next.items.map((event) => event.label)).toEqual(
        expected.slice(expected.indexOf('b') + 1, expected.indexOf('b') + 3),
      );
      // A row that is not there: the values given are the position.
      const gone = await events.list({
        limit: 8,
        after: { id: 9, at: new Date('2026-01-01T00:00:00.124Z') },
      });
      expect(gone.items.map((event) => event.label)).toEqual(
        direction === 'asc'
          ? expected.slice(expected.indexOf('g') + 1)
          : expected.slice(expected.indexOf('g')),
      );
    }
  });

  it('pages bigint ids past 2^53 (equal as JavaScript numbers) each once', async () => {
    await client.query(
      "INSERT INTO big (id, label) VALUES (9007199254740993, 'a'), (9007199254740994, 'b'), (9007199254740995, 'c')",
    );
    const big = repository<{ id: number; label: string }>(client, { table: 'big', columns: ['id', 'label'] });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5 && (page === 0 || cursor !== null); page++) {
      const result: { items: { label: string }[]; nextCursor: string | null } = await big.list({
        limit: 1,
        cursor,
      });
      seen.push(...result.items.map((row) => row.label));
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('an id or scope its column cannot hold is no row: get, update, delete, list; in a transaction too', async () => {
    type Account = { id: number; owner: string; n: number };
    const accounts = repository<Account>(client, {
      table: 'accounts',
      columns: ['id', 'owner', 'n'],
      scope: 'owner',
    });
    const owner = randomUUID();
    await accounts.insert(owner, { id: 1, n: 1 });
    await accounts.insert(owner, { id: 2, n: 2 });
    const unreadable: [string, number | string][] = [
      ['not-a-uuid', 1], // a scope that is not a uuid
      [owner, 'one'], // an id that is not a number
      [owner, 2 ** 70], // an id past bigint
    ];
    for (const [scope, id] of unreadable) {
      expect(await accounts.get(scope, id)).toBeUndefined();
      expect(await accounts.update(scope, id, { n: 9 })).toBeUndefined();
      expect(await accounts.delete(scope, id)).toBe(false);
    }
    const first = await accounts.list(owner, { limit: 1 });
    for (const options of [{ limit: 5 }, { limit: 5, cursor: first.nextCursor }]) {
      expect(await accounts.list('not-a-uuid', options)).toEqual({ items: [], nextCursor: null });
    }
    // A value its column cannot hold in the values or the patch is the caller's mistake: it still fails.
    await expect(accounts.update(owner, 1, { n: 'many' as unknown as number })).rejects.toMatchObject({
      code: '22P02',
    });
    await expect(accounts.insert('not-a-uuid', { id: 3 })).rejects.toMatchObject({ code: '22P02' });
    expect((await accounts.list(owner, { limit: 5 })).items).toEqual([
      { id: 1, owner, n: 1 },
      { id: 2, owner, n: 2 },
    ]);
    // In a transaction the answer is the same, and the transaction goes on to commit what it wrote.
    await client.transaction(async (tx) => {
      const inTx = accounts.on(tx);
      expect(await inTx.get(owner, 'one')).toBeUndefined();
      expect(await inTx.update('not-a-uuid', 1, { n: 9 })).toBeUndefined();
      expect(await inTx.delete(owner, 2 ** 70)).toBe(false);
      expect(await inTx.list('not-a-uuid', { limit: 1 })).toEqual({ items: [], nextCursor: null });
      await inTx.update(owner, 1, { n: 3 });
    });
    expect(await accounts.get(owner, 1)).toEqual({ id: 1, owner, n: 3 });
  });

  it('a forged, altered or foreign cursor answers DATA_CURSOR_INVALID, never a wrong page', async () => {
    const owner = randomUUID();
    for (const offset of [1, 2, 3]) await notes.insert(owner, { title: 't', createdAt: at(offset) });
    const { nextCursor } = await notes.list(owner, { limit: 1 });
    const [fingerprint] = JSON.parse(Buffer.from(nextCursor!, 'base64url').toString()) as [string];
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const foreign = repository<Note>(client, {
      table: 'notes',
      columns: ['id', 'owner', 'title', 'body', 'createdAt', 'wordCount'],
      scope: 'owner',
      order: { by: 'createdAt', direction: 'asc' },
    });
    const foreignCursor = (await foreign.list(owner, { limit: 1 })).nextCursor!;
    const bad = [
      'not-a-cursor!',
      forge('plain text'),
      forge([fingerprint, '2026-01-01 00:00:00+00']),
      forge([fingerprint, 1, randomUUID()]),
      forge([fingerprint, ['s', '2026-01-01 00:00:00+00'], ['s', randomUUID()]]),
      forge([fingerprint, '2026-01-01 00:00:00+00', null]),
      forge([fingerprint, '2026-01-01 00:00:00+00', 'nul\u0000']),
      forge(['other', '2026-01-01 00:00:00+00', randomUUID()]),
      // Decodes, but the database cannot hold the values: text where a uuid belongs.
      forge([fingerprint, '2026-01-01 00:00:00+00', 'not-a-uuid']),
      forge([fingerprint, 'not a date', randomUUID()]),
      foreignCursor,
    ];
    for (const cursor of bad) {
      const error = await rejection(notes.list(owner, { limit: 1, cursor }));
      expect(error.code, cursor).toBe('DATA_CURSOR_INVALID');
      expect(error.status).toBe(400);
    }
    // The genuine cursor still works.
    expect((await notes.list(owner, { limit: 5, cursor: nextCursor! })).items).toHaveLength(2);
  });

  it('on(tx) runs in a transaction: a failure rolls the insert back', async () => {
    const owner = randomUUID();
    const failed = client.transaction(async (tx) => {
      await notes.on(tx).insert(owner, { title: 'in tx', createdAt: at(5) });
      expect((await notes.on(tx).list(owner, { limit: 5 })).items).toHaveLength(1);
      throw new Error('abort');
    });
    await expect(failed).rejects.toThrow('abort');
    expect((await notes.list(owner, { limit: 5 })).items).toEqual([]);
  });
});

describe('repository(): names and arguments are checked before any SQL', () => {
  const statements: string[] = [];
  const recording = {
    async query<Row>(text: string) {
      statements.push(text);
      return { rows: [] as Row[], rowCount: 0 };
    },
  };
  // A client, as stores.sql: it has transaction(), so each statement stands alone.
  const client = {
    ...recording,
    transaction: () => Promise.reject(new Error('not used here')),
  };
  const recorder: SqlQueryable = client;
  const optionError = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      if (error instanceof OptionError) return `${error.code} ${error.message}`;
      throw error;
    }
    throw new Error('expected an OptionError');
  };

  it('refuses table and column names that are not plain lower-case SQL names', () => {
    type Row = { id: string; title: string };
    const columns = ['id', 'title'] as const;
    expect(optionError(() => repository<Row>(recorder, { table: 'notes; DROP TABLE x', columns }))).toMatch(
      /^OPTION_INVALID repository\("notes; DROP TABLE x"\): table must be a SQL name/,
    );
    expect(optionError(() => repository<Row>(recorder, { table: 'Notes', columns }))).toMatch(
      /table must be/,
    );
    expect(optionError(() => repository<Row>(recorder, { table: 'a.b.c', columns }))).toMatch(
      /table must be/,
    );
    expect(
      optionError(() =>
        repository<{ id: string; title: string }>(recorder, {
          table: 'notes',
          columns: { id: 'id', title: 'title"--' },
        }),
      ),
    ).toMatch(/columns\.title must be a SQL name.*got "title\\"--"/);
    expect(
      optionError(() =>
        repository<{ id: string; title: string }>(recorder, {
          table: 'notes',
          columns: { id: 'id', title: 'id' },
        }),
      ),
    ).toMatch(/columns\.title must be a column of its own; id names "id" too/);
    expect(optionError(() => repository<Row>(recorder, { table: 'notes', columns: [] }))).toMatch(
      /columns must be/,
    );
    expect(statements).toEqual([]);
  });

  it('refuses an id, scope or order that is not a column, and unknown options', () => {
    type Row = { id: string; owner: string; createdAt: Date };
    const columns = ['id', 'owner', 'createdAt'] as const;
    const base = { table: 'notes', columns };
    const cases: [string, () => unknown][] = [
      ['id must be one of the columns', () => repository<Row>(recorder, { ...base, id: 'key' as 'id' })],
      [
        'scope must be one of the columns',
        () => repository<Row>(recorder, { ...base, scope: 'user' as 'id' }),
      ],
      ['scope must be a column other than the id', () => repository<Row>(recorder, { ...base, scope: 'id' })],
      [
        'order.by must be one of the columns',
        () => repository<Row>(recorder, { ...base, order: { by: 'created' as 'id' } }),
      ],
      [
        "order.direction must be 'asc' or 'desc'",
        () => repository<Row>(recorder, { ...base, order: { by: 'createdAt', direction: 'down' as 'asc' } }),
      ],
      ['unknown option "scop"', () => repository<Row>(recorder, { ...base, ...{ scop: 'owner' } })],
    ];
    for (const [message, make] of cases) expect(optionError(make)).toContain(message);
    expect(statements).toEqual([]);
  });

  it('quotes every name and passes every value as a parameter', async () => {
    const notes = repository<{ id: string; owner: string; createdAt: Date }>(recorder, {
      table: 'app.notes',
      columns: ['id', 'owner', 'createdAt'],
      scope: 'owner',
      order: { by: 'createdAt', direction: 'desc' },
    });
    await notes.get('u1', 'n1');
    await notes.list('u1', { limit: 5, after: { id: 'n1', createdAt: new Date(T0) } });
    const get =
      'SELECT "id" AS "id", "owner" AS "owner", "created_at" AS "createdAt" FROM "app"."notes" WHERE "id" = $1 AND "owner" = $2';
    expect(statements).toEqual([
      get,
      // The row's position as text (full precision), and `after` a row reads its stored order value.
      'SELECT "id" AS "id", "owner" AS "owner", "created_at" AS "createdAt", "created_at"::text AS "svc:position:0", "id"::text AS "svc:position:1" ' +
        'FROM "app"."notes" WHERE "owner" = $1 AND ("created_at", "id") < ' +
        '(COALESCE((SELECT "created_at" FROM "app"."notes" WHERE "id" = $2 AND "owner" = $1), $3), $2) ' +
        'ORDER BY "created_at" DESC, "id" DESC LIMIT $4',
    ]);
    statements.length = 0;
    // Inside a transaction (no transaction() of its own), under a savepoint: a value its column cannot
    // hold then answers "no row" without aborting the caller's transaction.
    await notes.on(recording).get('u1', 'n1');
    expect(statements).toEqual(['SAVEPOINT svc_repository', get, 'RELEASE SAVEPOINT svc_repository']);
    statements.length = 0;
  });

  it('refuses a value for a property it does not know, the scope in the values, and a changed id', async () => {
    const notes = repository<{ id: string; owner: string; title: string }>(recorder, {
      table: 'notes',
      columns: ['id', 'owner', 'title'],
      scope: 'owner',
    });
    const refused = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      return error instanceof OptionError ? error.message : String(error);
    };
    const misspelt = { titel: 'x' } as unknown as { title: string };
    expect(await refused(notes.insert('u1', misspelt))).toContain(
      'values.titel must be one of the columns (id, owner, title)',
    );
    expect(await refused(notes.insert('u1', { owner: 'u2' }))).toContain(
      'values.owner must be left out; the scope is the first argument',
    );
    expect(await refused(notes.update('u1', 'n1', { id: 'n2' }))).toContain('values.id must be left out');
    expect(await refused(notes.get('u1', undefined as unknown as string))).toContain('id must be a string');
    expect(await refused(notes.list('u1', { limit: 0 }))).toContain(
      'limit must be a whole number, 1 or more',
    );
    expect(statements).toEqual([]);
  });

  it('types: the scope comes first, values are row properties', () => {
    const notes = repository<{ id: string; owner: string; title: string }>(recorder, {
      table: 'notes',
      columns: ['id', 'owner', 'title'],
      scope: 'owner',
    });
    const typeChecks = async () => {
      // @ts-expect-error a scoped repository needs the scope value
      await notes.get('n1');
      // @ts-expect-error title is a string
      await notes.insert('u1', { title: 1 });
      // @ts-expect-error not a property of the row
      await notes.update('u1', 'n1', { titel: 'x' });
      const row = await notes.get('u1', 'n1');
      const title: string | undefined = row?.title;
      return title;
    };
    expect(typeof typeChecks).toBe('function');
  });

  it('snakeCase maps properties to the columns a person would name', () => {
    expect(['createdAt', 'userID', 'HTTPStatus', 'sha256Sum', 'id'].map(snakeCase)).toEqual([
      'created_at',
      'user_id',
      'http_status',
      'sha256_sum',
      'id',
    ]);
  });
});
