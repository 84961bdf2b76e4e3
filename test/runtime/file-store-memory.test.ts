// The in-memory file metadata store (the file service's default): the whole FileStore contract, races
// included, and what only it has: a cap on the records it holds.
import { describe, expect, it } from 'vitest';
import { MemoryFileStore } from '../../runtime/files/store/memory-store.js';
import { fileStoreContract } from './contracts/file-store.js';
import { rejectionOf } from './contracts/rejection.js';

fileStoreContract('MemoryFileStore', () => new MemoryFileStore());

describe('MemoryFileStore limits', () => {
  const record = (id: string) => ({
    id,
    name: id,
    contentType: 'text/plain',
    size: 1,
    createdAt: new Date(0).toISOString(),
    path: `t/${id}`,
    checksum: '0'.repeat(64),
    tenantId: 't',
  });

  it('refuses a record past maxRecords with FILE_STORE_FULL, keeping its reservation; a removal makes room', async () => {
    const store = new MemoryFileStore({ maxRecords: 1 });
    await store.commit(record('f1'));
    expect(await store.reserve({ tenantId: 't', reservationId: 'r', bytes: 1, now: 0, ttlMs: 10 })).toBe(
      true,
    );
    expect((await rejectionOf(store.commit(record('f2'), 'r'))).code).toBe('FILE_STORE_FULL');
    expect(await store.usedBytes('t', 0)).toBe(2);
    await store.remove('t', 'f1');
    await store.commit(record('f2'), 'r');
    expect(await store.usedBytes('t', 0)).toBe(1);
  });

  it('refuses unknown options and a bad maxRecords', () => {
    expect(() => new MemoryFileStore({ maxRecord: 5 } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN' }),
    );
    for (const maxRecords of [0, 1.5, -1, Number.NaN]) {
      expect(() => new MemoryFileStore({ maxRecords })).toThrow(
        expect.objectContaining({ code: 'OPTION_INVALID' }),
      );
    }
  });
});
