// upload()'s `sizeAtMost`: a stream of unknown size but known bound reserves that bound at once when it fits,
// so uploads in flight on a tight quota cannot starve each other with partial reservations. Run on every
// metadata store, since the reservation is the store's atomic step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDisk } from '../../../../runtime/files/disks/index.js';
import type { FileServiceOptions } from '../../../../runtime/files/service/api.js';
import { createFileService } from '../../../../runtime/files/service/service.js';
import { MemoryFileStore } from '../../../../runtime/files/store/memory-store.js';
import type { FileStore } from '../../../../runtime/files/store/store.js';
import {
  migrate,
  openSqlClient,
  SqlFileStore,
  type SqlClient,
} from '../../../../runtime/stores/sql/index.js';
import { freshDatabaseWithTwoPools } from '../../contracts/two-pools.js';
import { trackedSource } from './helpers.js';

const SIZE = 900_000;
const CHUNK = 100_000;
const QUOTA = 3_000_000;

let pglite: SqlClient;
beforeAll(async () => {
  pglite = await openSqlClient('pglite:memory');
  await migrate(pglite);
});
afterAll(async () => {
  await pglite?.close();
});
const postgres = freshDatabaseWithTwoPools();

const STORES: [string, () => FileStore][] = [
  ['memory', () => new MemoryFileStore()],
  ['PGlite', () => new SqlFileStore(pglite)],
  ['PostgreSQL', () => new SqlFileStore(postgres.client)],
];

/**
 * `count` streams of SIZE bytes in CHUNK pieces, each delivering its first piece and then waiting until all
 * have started (or been refused), so every reservation is held at once, as for browser uploads in flight.
 */
function stalledStreams(count: number) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const started: Promise<void>[] = [];
  const streams = Array.from({ length: count }, (_, index) => {
    let began!: () => void;
    started.push(new Promise<void>((resolve) => (began = resolve)));
    return (async function* () {
      yield Buffer.alloc(CHUNK, index);
      began();
      await gate;
      for (let sent = CHUNK; sent < SIZE; sent += CHUNK) yield Buffer.alloc(CHUNK, index);
    })();
  });
  return { streams, started, release };
}

describe.each(STORES)('sizeAtMost on the %s store', (_, makeStore) => {
  function setup(options: Partial<FileServiceOptions> = {}) {
    const store = makeStore();
    const disk = memoryDisk();
    const service = createFileService({ disk, store, maxTotalBytes: QUOTA, ...options });
    // Each test in a tenant of its own: the SQL stores are shared by the whole file.
    const tenantId = `t-${Math.random().toString(36).slice(2)}`;
    return { store, disk, service, tenantId };
  }

  async function uploadAtOnce(count: number, service: ReturnType<typeof setup>['service'], tenantId: string) {
    const { streams, started, release } = stalledStreams(count);
    const uploads = streams.map((stream, index) =>
      service.upload(stream, { name: `f${index}`, tenantId, sizeAtMost: SIZE + 200 }),
    );
    const settled = Promise.allSettled(uploads);
    // Every upload holds its reservation at the gate (or was refused already) before any goes on.
    const ignore = () => undefined;
    await Promise.all(started.map((began, i) => Promise.race([began, uploads[i]!.then(ignore, ignore)])));
    release();
    return settled;
  }

  it('six uploads of 900 kB in flight on a 3 MB quota: exactly the three that fit are stored', async () => {
    const { store, disk, service, tenantId } = setup();
    const results = await uploadAtOnce(6, service, tenantId);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    for (const result of refused) {
      expect(result.reason).toMatchObject({ status: 402, code: 'FILE_QUOTA_EXCEEDED' });
    }
    // The commits kept the real sizes: the rest of each bound was given back.
    expect(await store.usedBytes(tenantId, Date.now())).toBe(3 * SIZE);
    expect(disk.usedBytes()).toBe(3 * SIZE);

    // 1.2 MB free, six at once: the one that fits is stored, not refused for room the others hold in part.
    const [first] = await store.list(tenantId);
    await service.delete(first!.id, tenantId);
    const again = await uploadAtOnce(6, service, tenantId);
    expect(again.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(await store.usedBytes(tenantId, Date.now())).toBe(3 * SIZE);
  });

  it('a bound past what is left still lets a file that exactly fills the quota in; one below the size is no cap', async () => {
    const { store, service, tenantId } = setup({ maxTotalBytes: SIZE });
    const exact = await service.upload(pieces(SIZE), { name: 'exact', tenantId, sizeAtMost: SIZE + 10_000 });
    expect(exact.size).toBe(SIZE);
    expect(await store.usedBytes(tenantId, Date.now())).toBe(SIZE);
    await service.delete(exact.id, tenantId);
    const under = await service.upload(pieces(SIZE), { name: 'under', tenantId, sizeAtMost: CHUNK });
    expect(under.size).toBe(SIZE);
    expect(await store.usedBytes(tenantId, Date.now())).toBe(SIZE);
  });
});

describe('sizeAtMost checks', () => {
  it.each([-1, 1.5, Number.NaN, Infinity, Number.MAX_SAFE_INTEGER + 1, '10'])(
    'refuses sizeAtMost %s as a programming error, reading nothing',
    async (sizeAtMost) => {
      const service = createFileService({ disk: memoryDisk(), maxTotalBytes: QUOTA });
      const { source, state } = trackedSource([Buffer.from('x')]);
      await expect(
        service.upload(source, { name: 'a', sizeAtMost: sizeAtMost as number }),
      ).rejects.toMatchObject({ code: 'OPTION_INVALID' });
      expect(state.pulled).toBe(0);
    },
  );
});

/** `size` bytes in CHUNK pieces, as a stream of unknown size. */
async function* pieces(size: number) {
  for (let sent = 0; sent < size; sent += CHUNK) yield Buffer.alloc(Math.min(CHUNK, size - sent), 1);
}
