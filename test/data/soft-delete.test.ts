// repository()'s `softDelete` option (svckit/data) on PGlite in memory and on a real PostgreSQL reached through
// two pools (two processes of one service): delete() marks a live row with now() in one statement, so of two
// deletes of one row exactly one answers true; a marked row is as absent as another scope's to get, update and
// list, keeps its place for cursors taken before, and no insert or update patch can mark or unmark it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionError } from 'svckit';
import { repository, type Repository, type ScopedRepository } from 'svckit/data';
import { openSqlClient, type SqlClient, type SqlQueryable } from 'svckit/stores';
import { createDatabase } from '../backends.js';

interface Doc {
  id: string;
  owner: string;
  title: string;
  createdAt: Date;
  deletedAt: Date | null;
}

interface Stamp {
  id: number;
  at: Date;
  deletedAt: Date | null;
}

const TABLES = `CREATE TABLE docs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner text NOT NULL,
  title text NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX docs_live ON docs (owner, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE TABLE stamps (id bigint PRIMARY KEY, at timestamptz NOT NULL, deleted_at timestamptz)`;

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (offsetMs: number) => new Date(T0 + offsetMs);

function docsOf(db: SqlQueryable): ScopedRepository<Doc> {
  return repository<Doc>(db, {
    table: 'docs',
    columns: ['id', 'owner', 'title', 'createdAt', 'deletedAt'],
    scope: 'owner',
    order: { by: 'createdAt', direction: 'desc' },
    softDelete: 'deletedAt',
  });
}

function stampsOf(db: SqlQueryable): Repository<Stamp> {
  return repository<Stamp>(db, {
    table: 'stamps',
    columns: ['id', 'at', 'deletedAt'],
    order: { by: 'at' },
    softDelete: 'deletedAt',
  });
}

async function optionError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof OptionError)) throw new Error(`expected an OptionError, got ${String(error)}`);
  return `${error.code} ${error.message}`;
}

interface Backend {
  client: SqlClient;
  /** Another process's pool on the same database; PGlite has one connection, so the same client. */
  otherProcess: SqlClient;
  /** Whether a session of the database waits on a lock; undefined where sessions cannot be watched. */
  lockWaiters: (() => Promise<boolean>) | undefined;
  drop(): Promise<void>;
}

const backends: [string, () => Promise<Backend>][] = [
  [
    'PGlite',
    async () => {
      const client = await openSqlClient('pglite:memory');
      return { client, otherProcess: client, lockWaiters: undefined, drop: () => client.close() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await createDatabase();
      const client = await openSqlClient(database.url);
      const otherProcess = await openSqlClient(database.url);
      const lockWaiters = async () => {
        const { rows } = await client.query<{ waiting: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock') AS waiting`,
        );
        return rows[0]!.waiting;
      };
      const drop = async () => {
        await client.close();
        await otherProcess.close();
        await database.drop();
      };
      return { client, otherProcess, lockWaiters, drop };
    },
  ],
];

describe.each(backends)('repository() with softDelete on %s', (name, open) => {
  let backend: Backend;
  let client: SqlClient;
  let docs: ScopedRepository<Doc>;
  let docsOfOtherProcess: ScopedRepository<Doc>;

  beforeAll(async () => {
    backend = await open();
    client = backend.client;
    await client.query(TABLES);
    docs = docsOf(client);
    docsOfOtherProcess = docsOf(backend.otherProcess);
  });

  afterAll(async () => {
    await backend?.drop();
  });

  const stored = async (id: string) =>
    (
      await client.query<{ title: string; deleted: boolean }>(
        'SELECT title, deleted_at IS NOT NULL AS deleted FROM docs WHERE id = $1',
        [id],
      )
    ).rows;

  it('delete marks the row in place with now(), once: true, then false; the row stays in the table', async () => {
    const owner = randomUUID();
    const doc = await docs.insert(owner, { title: 'Draft', createdAt: at(0) });
    expect(doc.deletedAt).toBeNull();
    expect(await docs.delete(owner, doc.id)).toBe(true);
    expect(await stored(doc.id)).toEqual([{ title: 'Draft', deleted: true }]);
    const marked = await client.query<{ marked_now: boolean }>(
      'SELECT deleted_at <= now() AS marked_now FROM docs WHERE id = $1',
      [doc.id],
    );
    expect(marked.rows).toEqual([{ marked_now: true }]);
    expect(await docs.delete(owner, doc.id)).toBe(false);
    expect(await docs.delete(owner, randomUUID())).toBe(false);
  });

  it('get, update and list never see a marked row, and update changes nothing in it', async () => {
    const owner = randomUUID();
    const kept = await docs.insert(owner, { title: 'Kept', createdAt: at(1) });
    const gone = await docs.insert(owner, { title: 'Gone', createdAt: at(2) });
    await docs.delete(owner, gone.id);
    expect(await docs.get(owner, gone.id)).toBeUndefined();
    expect(await docs.update(owner, gone.id, { title: 'Edited' })).toBeUndefined();
    expect(await docs.update(owner, gone.id, {})).toBeUndefined();
    expect(await stored(gone.id)).toEqual([{ title: 'Gone', deleted: true }]);
    expect(await docs.list(owner, { limit: 10 })).toEqual({ items: [kept], nextCursor: null });
    // The live row is untouched by all this.
    expect(await docs.get(owner, kept.id)).toEqual(kept);
    expect(await docs.update(owner, kept.id, { title: 'Still here' })).toEqual({
      ...kept,
      title: 'Still here',
    });
  });

  it('scoped: another scope cannot mark a row, and a marked row stays invisible to every scope', async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    const alices = await docs.insert(alice, { title: 'Alice', createdAt: at(3) });
    const bobs = await docs.insert(bob, { title: 'Bob', createdAt: at(4) });
    expect(await docs.delete(bob, alices.id)).toBe(false);
    expect(await stored(alices.id)).toEqual([{ title: 'Alice', deleted: false }]);
    expect(await docs.get(alice, alices.id)).toEqual(alices);
    expect(await docs.delete(alice, alices.id)).toBe(true);
    for (const scope of [alice, bob]) {
      expect(await docs.get(scope, alices.id)).toBeUndefined();
      expect(await docs.update(scope, alices.id, { title: 'x' })).toBeUndefined();
      expect(await docs.delete(scope, alices.id)).toBe(false);
    }
    expect((await docs.list(alice, { limit: 10 })).items).toEqual([]);
    // Bob's own live row is still his alone.
    expect(await docs.get(alice, bobs.id)).toBeUndefined();
    expect((await docs.list(bob, { limit: 10 })).items).toEqual([bobs]);
  });

  it('two deletes of one row at once, from two processes, answer true exactly once', async () => {
    const owner = randomUUID();
    const rows = await Promise.all(
      Array.from({ length: 10 }, (_, index) => docs.insert(owner, { title: `r${index}`, createdAt: at(5) })),
    );
    const answers = await Promise.all(
      rows.map((row) => Promise.all([docs.delete(owner, row.id), docsOfOtherProcess.delete(owner, row.id)])),
    );
    for (const pair of answers) expect(pair.filter(Boolean)).toEqual([true]);
    expect((await docs.list(owner, { limit: 20 })).items).toEqual([]);
  });

  it.runIf(name === 'PostgreSQL')(
    "a delete waiting on another process's delete answers what the database decides: false once it commits, true if it rolls back",
    async () => {
      const lockWaiters = backend.lockWaiters!;
      for (const outcome of ['commit', 'rollback'] as const) {
        const owner = randomUUID();
        const doc = await docs.insert(owner, { title: outcome, createdAt: at(6) });
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let markedInFirst!: (marked: boolean) => void;
        const firstMarked = new Promise<boolean>((resolve) => (markedInFirst = resolve));
        const first = client.transaction(async (tx) => {
          markedInFirst(await docs.on(tx).delete(owner, doc.id));
          await released;
          if (outcome === 'rollback') throw new Error('rolled back');
        });
        expect(await firstMarked).toBe(true);
        // The other process's statement finds the row locked by the uncommitted mark and waits for it.
        const second = docsOfOtherProcess.delete(owner, doc.id);
        let waiting = false;
        for (let round = 0; round < 1000 && !waiting; round++) waiting = await lockWaiters();
        expect(waiting).toBe(true);
        release();
        if (outcome === 'commit') await first;
        else await expect(first).rejects.toThrow('rolled back');
        expect({ outcome, second: await second }).toEqual({ outcome, second: outcome === 'rollback' });
        expect(await stored(doc.id)).toEqual([{ title: outcome, deleted: true }]);
      }
    },
  );

  it('a cursor taken before a delete pages on after the marked row, which is skipped', async () => {
    const owner = randomUUID();
    const made: Doc[] = [];
    for (const offset of [10, 20, 30, 40, 50, 60]) {
      made.push(await docs.insert(owner, { title: `t${offset}`, createdAt: at(offset) }));
    }
    const newestFirst = [...made].reverse().map((doc) => doc.title);
    const first = await docs.list(owner, { limit: 2 });
    expect(first.items.map((doc) => doc.title)).toEqual(newestFirst.slice(0, 2));
    // The cursor's own row (the page's last) and one further on are deleted meanwhile.
    const cursorRow = first.items[1]!;
    await docs.delete(owner, cursorRow.id);
    await docs.delete(owner, made.find((doc) => doc.title === 't20')!.id);
    const second = await docs.list(owner, { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((doc) => doc.title)).toEqual(['t40', 't30']);
    const third = await docs.list(owner, { limit: 2, cursor: second.nextCursor });
    expect(third).toEqual({ items: [made[0]], nextCursor: null });
    // `after` the marked row starts where its cursor would.
    const afterMarked = await docs.list(owner, { limit: 2, after: cursorRow });
    expect(afterMarked.items.map((doc) => doc.title)).toEqual(['t40', 't30']);
  });

  it('`after` a marked row reads its stored position: rows apart by microseconds still page right after it', async () => {
    await client.query(`INSERT INTO stamps (id, at) VALUES
      (1, '2026-01-01 00:00:00.1231+00'), (2, '2026-01-01 00:00:00.1232+00'), (3, '2026-01-01 00:00:00.1233+00')`);
    const stamps = stampsOf(client);
    const second = (await stamps.get(2))!;
    // The row held in JavaScript lost its microseconds: given alone, its position would come before row 1.
    expect(second.at.toISOString()).toBe('2026-01-01T00:00:00.123Z');
    const before = await stamps.list({ limit: 1 });
    expect(before.items.map((stamp) => stamp.id)).toEqual([1]);
    expect(await stamps.delete(2)).toBe(true);
    expect(await stamps.delete(2)).toBe(false);
    expect(await stamps.get(2)).toBeUndefined();
    expect(await stamps.update(2, { at: new Date(T0) })).toBeUndefined();
    expect((await stamps.list({ limit: 5, after: second })).items.map((stamp) => stamp.id)).toEqual([3]);
    expect((await stamps.list({ limit: 5, cursor: before.nextCursor })).items.map((s) => s.id)).toEqual([3]);
    expect((await stamps.list({ limit: 5 })).items.map((stamp) => stamp.id)).toEqual([1, 3]);
  });

  it('insert and update refuse a value for the mark, null included: a patch can neither delete nor restore', async () => {
    const owner = randomUUID();
    const doc = await docs.insert(owner, { title: 'Live', createdAt: at(70), deletedAt: undefined });
    expect(doc.deletedAt).toBeNull();
    const refusal = 'values.deletedAt must be left out; only delete() marks a row deleted';
    expect(
      await optionError(docs.insert(owner, { title: 'x', createdAt: at(71), deletedAt: new Date() })),
    ).toBe(`OPTION_INVALID repository("docs").insert(): ${refusal}.`);
    expect(await optionError(docs.update(owner, doc.id, { deletedAt: new Date() }))).toContain(refusal);
    expect(await stored(doc.id)).toEqual([{ title: 'Live', deleted: false }]);
    await docs.delete(owner, doc.id);
    expect(await optionError(docs.update(owner, doc.id, { deletedAt: null }))).toContain(refusal);
    expect(await stored(doc.id)).toEqual([{ title: 'Live', deleted: true }]);
    expect((await docs.list(owner, { limit: 5 })).items).toEqual([]);
  });

  it('on(tx) keeps the option: the mark is the transaction’s, rolled back with it', async () => {
    const owner = randomUUID();
    const doc = await docs.insert(owner, { title: 'In tx', createdAt: at(80) });
    const failed = client.transaction(async (tx) => {
      const inTx = docs.on(tx);
      expect(await inTx.delete(owner, doc.id)).toBe(true);
      expect(await inTx.get(owner, doc.id)).toBeUndefined();
      expect(await inTx.delete(owner, doc.id)).toBe(false);
      expect((await inTx.list(owner, { limit: 5 })).items).toEqual([]);
      expect(await optionError(inTx.update(owner, doc.id, { deletedAt: null }))).toContain(
        'values.deletedAt must be left out',
      );
      throw new Error('abort');
    });
    await expect(failed).rejects.toThrow('abort');
    expect(await docs.get(owner, doc.id)).toEqual(doc);
  });
});

describe('repository(): softDelete is checked when the repository is made, and is part of each statement', () => {
  const statements: string[] = [];
  const recorder: SqlQueryable = {
    async query<Row>(text: string) {
      statements.push(text);
      return { rows: [] as Row[], rowCount: 0 };
    },
  };
  // A client, as stores.sql: it has transaction(), so each statement stands alone (no savepoint).
  const client: SqlQueryable = {
    ...recorder,
    transaction: () => Promise.reject(new Error('not used here')),
  } as SqlQueryable;
  type Row = { id: string; owner: string; createdAt: Date; deletedAt: Date | null };
  const base = {
    table: 'docs',
    columns: ['id', 'owner', 'createdAt', 'deletedAt'] as const,
  };
  const made = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      if (error instanceof OptionError) return `${error.code} ${error.message}`;
      throw error;
    }
    return 'made';
  };

  it('refuses a softDelete that is not a column, or is the id, the scope or order.by', () => {
    const other = 'softDelete must be a column other than the id, the scope and order.by';
    const cases: [string, () => unknown][] = [
      [
        'softDelete must be one of the columns (id, owner, createdAt, deletedAt); got "removedAt"',
        () => repository<Row>(recorder, { ...base, softDelete: 'removedAt' as 'deletedAt' }),
      ],
      [`${other}; got "id", which is the id`, () => repository<Row>(recorder, { ...base, softDelete: 'id' })],
      [
        `${other}; got "owner", which is the scope`,
        () => repository<Row>(recorder, { ...base, scope: 'owner', softDelete: 'owner' }),
      ],
      [
        `${other}; got "createdAt", which is order.by`,
        () => repository<Row>(recorder, { ...base, order: { by: 'createdAt' }, softDelete: 'createdAt' }),
      ],
    ];
    for (const [message, make] of cases)
      expect(made(make)).toContain(`OPTION_INVALID repository("docs"): ${message}`);
    expect(made(() => repository<Row>(recorder, { ...base, scope: 'owner', softDelete: 'deletedAt' }))).toBe(
      'made',
    );
    expect(statements).toEqual([]);
  });

  it('delete is one UPDATE of a live row in scope; get, update and list read live rows only', async () => {
    const docs = repository<Row>(client, {
      ...base,
      scope: 'owner',
      order: { by: 'createdAt', direction: 'desc' },
      softDelete: 'deletedAt',
    });
    await docs.delete('u1', 'd1');
    await docs.get('u1', 'd1');
    await docs.update('u1', 'd1', { createdAt: new Date(T0) });
    await docs.list('u1', { limit: 5 });
    const select =
      'SELECT "id" AS "id", "owner" AS "owner", "created_at" AS "createdAt", "deleted_at" AS "deletedAt"';
    expect(statements).toEqual([
      'UPDATE "docs" SET "deleted_at" = now() WHERE "id" = $1 AND "owner" = $2 AND "deleted_at" IS NULL',
      `${select} FROM "docs" WHERE "id" = $1 AND "owner" = $2 AND "deleted_at" IS NULL`,
      'UPDATE "docs" SET "created_at" = $1 WHERE "id" = $2 AND "owner" = $3 AND "deleted_at" IS NULL RETURNING ' +
        select.slice('SELECT '.length),
      `${select}, "created_at"::text AS "svc:position:0", "id"::text AS "svc:position:1" FROM "docs" ` +
        'WHERE "owner" = $1 AND "deleted_at" IS NULL ORDER BY "created_at" DESC, "id" DESC LIMIT $2',
    ]);
    statements.length = 0;
  });
});
