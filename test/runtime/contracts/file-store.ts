// The file metadata store contract as a reusable suite, run on every backend (memory, PGlite, PostgreSQL).
// `fileStoreContract` covers every method and rule; `fileStoreRaceContract` fires reservations, commits and
// removals all at once (Promise.all) through two stores on the same data (one store twice, or two pools: two
// processes), where a sum followed by a separate insert would let more than the quota through. Each test works
// in tenants of its own (a random prefix), so tests and files sharing a database never see each other's rows.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileRecord } from '../../../runtime/files/record.js';
import type { FileStore } from '../../../runtime/files/store/store.js';
import { sweepExpired, type SqlQueryable } from '../../../runtime/stores/sql/index.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
/** How many calls race at once. */
const RACERS = 20;

/**
 * Two tenant ids no other test uses, and `r(name)`: a reservation id no other test uses (reservation ids are
 * unique across tenants).
 */
function tenants(): { a: string; b: string; r: (name: string) => string } {
  const prefix = `t-${randomUUID()}`;
  return { a: `${prefix}-a`, b: `${prefix}-b`, r: (name) => `${prefix}-${name}` };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function file(tenantId: string, id: string, overrides: Partial<FileRecord> = {}): FileRecord {
  return {
    id,
    name: `${id}.pdf`,
    contentType: 'application/pdf',
    size: 10,
    createdAt: iso(T0),
    path: `${tenantId}/${id}`,
    checksum: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    tenantId,
    ...overrides,
  };
}

/** A reservation of `bytes` at T0 for a minute, under a quota of `limit`. */
function hold(tenantId: string, reservationId: string, bytes: number, limit?: number, now = T0) {
  return { tenantId, reservationId, bytes, limit, now, ttlMs: MINUTE };
}

/** `count` calls of `call`, all started before any settles, spread over both stores. */
function atOnce<S, T>(stores: readonly [S, S], count: number, call: (store: S, index: number) => Promise<T>) {
  return Promise.all(Array.from({ length: count }, (_, index) => call(stores[index % 2]!, index)));
}

async function ids(records: Promise<FileRecord[]>): Promise<string[]> {
  return (await records).map((record) => record.id);
}

export function fileStoreContract(
  name: string,
  makeStore: () => Promise<FileStore> | FileStore,
  makeRacingStores: () => Promise<readonly [FileStore, FileStore]> = async () => {
    const store = await makeStore();
    return [store, store];
  },
): void {
  describe(`FileStore contract: ${name}`, () => {
    it('commit stores a record that get answers whole, every field and timestamp exactly as given', async () => {
      const store = await makeStore();
      const { a } = tenants();
      expect(await store.get(a, 'f1')).toBeUndefined();
      const full = file(a, 'f1', {
        size: 2 ** 40 + 7,
        createdAt: '2026-11-26T13:55:01.123Z',
        uploadedBy: 'alice',
        scannedAt: '2026-11-26T13:56:00.001Z',
        scan: { clean: false, detail: 'Eicar-Test-Signature' },
        metadata: {
          declaredType: 'text/plain',
          'svc:scan': { reason: 'x', at: iso(T0) },
          n: [1, 2.5, null, 'é'],
        },
      });
      const bare = file(a, 'f2', { createdAt: '2026-11-26T13:55:01.000Z', size: 0 });
      await store.commit(full);
      await store.commit(bare);
      expect(await store.get(a, 'f1')).toStrictEqual(full);
      expect(await store.get(a, 'f2')).toStrictEqual(bare);
      expect(await store.get(a, 'f3')).toBeUndefined();
      // A clean verdict without detail stays without one.
      const clean = file(a, 'f4', { scannedAt: iso(T0 + 1), scan: { clean: true }, metadata: {} });
      await store.commit(clean);
      expect(await store.get(a, 'f4')).toStrictEqual(clean);
    });

    it('answers copies: changing what it was given or what it answered changes nothing stored', async () => {
      const store = await makeStore();
      const { a } = tenants();
      const given = file(a, 'f1', { scan: { clean: true }, metadata: { tags: ['x'] } });
      await store.commit(given);
      given.name = 'changed';
      (given.metadata!.tags as string[]).push('y');
      const answered = (await store.get(a, 'f1'))!;
      expect(answered.name).toBe('f1.pdf');
      expect(answered.metadata).toEqual({ tags: ['x'] });
      answered.scan!.clean = false;
      (answered.metadata!.tags as string[]).push('z');
      (await store.list(a))[0]!.name = 'changed too';
      expect(await store.get(a, 'f1')).toStrictEqual(
        file(a, 'f1', { scan: { clean: true }, metadata: { tags: ['x'] } }),
      );
    });

    it('refuses a second record with the same tenant and id, keeping the first and its reservation', async () => {
      const store = await makeStore();
      const { a, b, r } = tenants();
      await store.commit(file(a, 'f1'));
      expect(await store.reserve(hold(a, r('r1'), 5))).toBe(true);
      await expect(store.commit(file(a, 'f1', { name: 'other', size: 5 }), r('r1'))).rejects.toThrow();
      expect(await store.get(a, 'f1')).toStrictEqual(file(a, 'f1'));
      expect(await store.usedBytes(a, T0)).toBe(15);
      // The same id in another tenant is another file.
      await store.commit(file(b, 'f1', { size: 7 }));
      expect(await store.get(b, 'f1')).toStrictEqual(file(b, 'f1', { size: 7 }));
    });

    it('never answers across tenants: get, list, update and remove of another tenant find nothing', async () => {
      const store = await makeStore();
      const { a, b } = tenants();
      await store.commit(file(a, 'f1', { uploadedBy: 'alice' }));
      expect(await store.get(b, 'f1')).toBeUndefined();
      expect(await store.list(b)).toEqual([]);
      expect(await store.list(b, { uploadedBy: 'alice' })).toEqual([]);
      expect(await store.update(b, 'f1', { metadata: { evil: true } })).toBeUndefined();
      expect(await store.remove(b, 'f1')).toBeUndefined();
      expect(await store.usedBytes(b, T0)).toBe(0);
      expect(await store.get(a, 'f1')).toStrictEqual(file(a, 'f1', { uploadedBy: 'alice' }));
    });

    it('lists a tenant oldest first (then by id), whatever the commit order, and filters by uploader', async () => {
      const store = await makeStore();
      const { a } = tenants();
      expect(await store.list(a)).toEqual([]);
      await store.commit(file(a, 'late', { createdAt: iso(T0 + 2), uploadedBy: 'bob' }));
      await store.commit(file(a, 'b-same', { createdAt: iso(T0 + 1), uploadedBy: 'alice' }));
      await store.commit(file(a, 'early', { createdAt: iso(T0) }));
      await store.commit(file(a, 'a-same', { createdAt: iso(T0 + 1), uploadedBy: 'alice' }));
      expect(await ids(store.list(a))).toEqual(['early', 'a-same', 'b-same', 'late']);
      expect(await ids(store.list(a, {}))).toEqual(['early', 'a-same', 'b-same', 'late']);
      expect(await ids(store.list(a, { uploadedBy: 'alice' }))).toEqual(['a-same', 'b-same']);
      expect(await ids(store.list(a, { uploadedBy: 'bob' }))).toEqual(['late']);
      expect(await store.list(a, { uploadedBy: 'carol' })).toEqual([]);
      expect((await store.list(a))[3]).toStrictEqual(
        file(a, 'late', { createdAt: iso(T0 + 2), uploadedBy: 'bob' }),
      );
    });

    it('update applies only the fields given, replaces metadata whole, and answers the updated record', async () => {
      const store = await makeStore();
      const { a } = tenants();
      const stored = file(a, 'f1', {
        uploadedBy: 'alice',
        metadata: { declaredType: 'text/plain', keep: 1 },
      });
      await store.commit(stored);
      expect(await store.update(a, 'f1', {})).toStrictEqual(stored);

      const scanned = { scannedAt: '2026-11-26T14:00:00.250Z', scan: { clean: false, detail: 'Worm.X' } };
      const afterScan = { ...stored, ...scanned };
      expect(await store.update(a, 'f1', scanned)).toStrictEqual(afterScan);
      expect(await store.get(a, 'f1')).toStrictEqual(afterScan);

      // A new verdict replaces the old one, detail included; metadata is replaced, not merged.
      const rescanned = {
        ...afterScan,
        scannedAt: iso(T0 + 5),
        scan: { clean: true },
        metadata: { only: 'this' },
      };
      expect(
        await store.update(a, 'f1', {
          scannedAt: iso(T0 + 5),
          scan: { clean: true },
          metadata: { only: 'this' },
        }),
      ).toStrictEqual(rescanned);
      expect(await store.update(a, 'f1', { metadata: {} })).toStrictEqual({ ...rescanned, metadata: {} });
      expect(await store.get(a, 'f1')).toStrictEqual({ ...rescanned, metadata: {} });
      expect(await store.update(a, 'missing', { scan: { clean: true } })).toBeUndefined();
      expect(await store.get(a, 'missing')).toBeUndefined();
    });

    it('remove answers the record once, then undefined; its bytes stop counting', async () => {
      const store = await makeStore();
      const { a } = tenants();
      const stored = file(a, 'f1', { size: 30, scan: { clean: true }, metadata: { k: 'v' } });
      await store.commit(stored);
      await store.commit(file(a, 'f2', { size: 12 }));
      expect(await store.usedBytes(a, T0)).toBe(42);
      expect(await store.remove(a, 'f1')).toStrictEqual(stored);
      expect(await store.remove(a, 'f1')).toBeUndefined();
      expect(await store.get(a, 'f1')).toBeUndefined();
      expect(await ids(store.list(a))).toEqual(['f2']);
      expect(await store.usedBytes(a, T0)).toBe(12);
      // The id is free again.
      await store.commit(file(a, 'f1', { size: 1 }));
      expect(await store.usedBytes(a, T0)).toBe(13);
    });

    it('reserve without a limit always succeeds; with one, up to the limit records and reservations included', async () => {
      const store = await makeStore();
      const { a, b, r } = tenants();
      expect(await store.reserve(hold(a, randomUUID(), Number.MAX_SAFE_INTEGER - 100))).toBe(true);
      expect(await store.reserve(hold(a, randomUUID(), 100))).toBe(true);
      expect(await store.usedBytes(a, T0)).toBe(Number.MAX_SAFE_INTEGER);

      await store.commit(file(b, 'f1', { size: 40 }));
      expect(await store.reserve(hold(b, r('r1'), 50, 100))).toBe(true);
      expect(await store.reserve(hold(b, r('r2'), 11, 100))).toBe(false); // 40 + 50 + 11 > 100
      expect(await store.usedBytes(b, T0)).toBe(90); // a refusal changes nothing
      expect(await store.reserve(hold(b, r('r2'), 10, 100))).toBe(true); // exactly the limit
      expect(await store.reserve(hold(b, r('r3'), 0, 100))).toBe(true);
      expect(await store.reserve(hold(b, r('r4'), 1, 100))).toBe(false);
      expect(await store.usedBytes(b, T0)).toBe(100);
      // Another tenant's usage is its own.
      expect(await store.usedBytes(a, T0)).toBe(Number.MAX_SAFE_INTEGER);
    });

    it('reserving again under an id grows it and renews its expiry; an expired one counts for nothing', async () => {
      const store = await makeStore();
      const { a, r } = tenants();
      expect(await store.reserve(hold(a, r('r1'), 30, 100))).toBe(true); // until T0 + 1 min
      expect(await store.reserve(hold(a, r('r1'), 20, 100, T0 + MINUTE / 2))).toBe(true); // 50 until T0 + 1.5 min
      expect(await store.reserve(hold(a, r('r1'), 51, 100, T0 + MINUTE / 2))).toBe(false); // 101 > 100
      expect(await store.usedBytes(a, T0 + MINUTE)).toBe(50); // the renewed expiry holds
      expect(await store.usedBytes(a, T0 + 1.5 * MINUTE - 1)).toBe(50);
      expect(await store.usedBytes(a, T0 + 1.5 * MINUTE)).toBe(0); // at its expiry it is gone
      // Growing an expired reservation starts from nothing.
      expect(await store.reserve(hold(a, r('r1'), 70, 100, T0 + 2 * MINUTE))).toBe(true);
      expect(await store.usedBytes(a, T0 + 2 * MINUTE)).toBe(70);
      // An expired reservation leaves room for a new one.
      expect(await store.reserve(hold(a, r('r2'), 100, 100, T0 + 3 * MINUTE))).toBe(true);
      expect(await store.usedBytes(a, T0 + 3 * MINUTE)).toBe(100);
    });

    it('commit turns the reservation into the record; release frees one; unknown ids change nothing', async () => {
      const store = await makeStore();
      const { a, r } = tenants();
      expect(await store.reserve(hold(a, r('r1'), 25, 100))).toBe(true);
      expect(await store.reserve(hold(a, r('r2'), 25, 100))).toBe(true);
      await store.commit(file(a, 'f1', { size: 20 }), r('r1'));
      expect(await store.usedBytes(a, T0)).toBe(45); // the record's 20, not also r1's 25
      await store.release(r('r2'));
      await store.release(r('r2'));
      await store.release(r('never-made'));
      expect(await store.usedBytes(a, T0)).toBe(20);
      // A commit naming an unknown reservation stores its record all the same.
      await store.commit(file(a, 'f2', { size: 5 }), r('never-made'));
      expect(await store.usedBytes(a, T0)).toBe(25);
      expect(await store.reserve(hold(a, r('r3'), 75, 100))).toBe(true);
      expect(await store.reserve(hold(a, r('r4'), 1, 100))).toBe(false);
    });

    it('refuses to grow a reservation id another tenant holds, leaving that one as it was', async () => {
      const store = await makeStore();
      const { a, b } = tenants();
      const id = randomUUID();
      expect(await store.reserve(hold(a, id, 10))).toBe(true);
      await expect(store.reserve(hold(b, id, 10))).rejects.toThrow();
      expect(await store.usedBytes(a, T0)).toBe(10);
      expect(await store.usedBytes(b, T0)).toBe(0);
    });

    fileStoreRaceContract(name, makeRacingStores);
  });
}

/** Calls fired at once through `stores` (alternating). Run separately on two pools of one database: two processes. */
export function fileStoreRaceContract(
  name: string,
  makeStores: () => Promise<readonly [FileStore, FileStore]>,
): void {
  describe(`FileStore races: ${name}`, () => {
    it(`${RACERS} reservations of 10 bytes at once under a quota of 100: exactly 10 are made`, async () => {
      const stores = await makeStores();
      const { a } = tenants();
      const made = await atOnce(stores, RACERS, (store) => store.reserve(hold(a, randomUUID(), 10, 100)));
      expect(made.filter(Boolean)).toHaveLength(10);
      expect(await stores[0].usedBytes(a, T0)).toBe(100);
    });

    it(`${RACERS} growths of one reservation at once under a quota of 100: it ends at exactly 100`, async () => {
      const stores = await makeStores();
      const { a } = tenants();
      const id = randomUUID();
      const made = await atOnce(stores, RACERS, (store) => store.reserve(hold(a, id, 10, 100)));
      expect(made.filter(Boolean)).toHaveLength(10);
      expect(await stores[1].usedBytes(a, T0)).toBe(100);
    });

    it('a commit racing reservations: each sees the reservation or its record, never neither', async () => {
      const stores = await makeStores();
      const { a, r } = tenants();
      expect(await stores[0].reserve(hold(a, r('upload'), 50, 100))).toBe(true);
      const [, ...made] = await Promise.all([
        stores[0].commit(file(a, 'f1', { size: 50 }), r('upload')),
        ...Array.from({ length: RACERS }, (_, index) =>
          stores[index % 2]!.reserve(hold(a, randomUUID(), 10, 100)),
        ),
      ]);
      expect(made.filter(Boolean)).toHaveLength(5);
      expect(await stores[1].usedBytes(a, T0)).toBe(100);
      expect(await stores[1].get(a, 'f1')).toStrictEqual(file(a, 'f1', { size: 50 }));
    });

    it('two removals of one record at once: one answers it, the other undefined', async () => {
      const stores = await makeStores();
      const { a } = tenants();
      await stores[0].commit(file(a, 'f1'));
      const removed = await Promise.all([stores[0].remove(a, 'f1'), stores[1].remove(a, 'f1')]);
      expect(removed.filter((record) => record !== undefined)).toStrictEqual([file(a, 'f1')]);
      expect(await stores[1].usedBytes(a, T0)).toBe(0);
    });

    it('two commits of one id at once: one is stored, the other refused', async () => {
      const stores = await makeStores();
      const { a } = tenants();
      const outcomes = await Promise.allSettled([
        stores[0].commit(file(a, 'f1', { name: 'one' })),
        stores[1].commit(file(a, 'f1', { name: 'two' })),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(await stores[0].list(a)).toHaveLength(1);
    });
  });
}

/**
 * What the SQL store adds to the contract: the sweeper deletes expired reservations (never records), and a
 * timestamp that would not read back exactly as written is refused rather than stored changed.
 */
export function sqlFileStoreContract(
  name: string,
  setup: () => { db: SqlQueryable; store: FileStore },
): void {
  describe(`SQL file store: ${name}`, () => {
    it('sweepExpired deletes reservations expired at `now` and keeps live ones and every record', async () => {
      const { db, store } = setup();
      const { a } = tenants();
      const [gone, edge, live] = [randomUUID(), randomUUID(), randomUUID()];
      await store.reserve({ ...hold(a, gone, 1), ttlMs: -1 });
      await store.reserve({ ...hold(a, edge, 2), ttlMs: 0 });
      await store.reserve({ ...hold(a, live, 4), ttlMs: 1 });
      await store.commit(file(a, 'f1', { size: 8 }));
      const deleted = await sweepExpired(db, T0);
      expect(deleted.svc_file_reservations).toBeGreaterThanOrEqual(2);
      const { rows } = await db.query<{ id: string }>(
        'SELECT id FROM svc_file_reservations WHERE id = ANY($1::text[]) ORDER BY id',
        [[gone, edge, live]],
      );
      expect(rows.map((row) => row.id)).toEqual([live]);
      expect(await store.usedBytes(a, T0)).toBe(12);
    });

    it('refuses a timestamp that would not read back exactly as written, storing nothing', async () => {
      const { store } = setup();
      const { a } = tenants();
      for (const createdAt of ['2026-11-26T13:55:01Z', '2026-11-26T14:55:01.123+01:00', 'yesterday']) {
        await expect(store.commit(file(a, 'f1', { createdAt }))).rejects.toThrow(TypeError);
      }
      await expect(store.commit(file(a, 'f1', { scannedAt: '2026-11-26' }))).rejects.toThrow(TypeError);
      expect(await store.list(a)).toEqual([]);
      await store.commit(file(a, 'f1'));
      await expect(store.update(a, 'f1', { scannedAt: 'soon' })).rejects.toThrow(TypeError);
      expect(await store.get(a, 'f1')).toStrictEqual(file(a, 'f1'));
    });
  });
}
