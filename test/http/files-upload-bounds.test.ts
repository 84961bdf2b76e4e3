// POST /files on every adapter, where the multipart reader's bounds meet the file service: concurrent
// browser uploads (no part Content-Length) on a tight quota store exactly the files that fit, and a part
// Content-Length that is no byte count is the file's invalid declared length, however it is wrong.
import { describe, expect, it } from 'vitest';
import { memoryDisk } from '../../runtime/files/disks/index.js';
import type { Disk, DiskContent } from '../../runtime/files/disks/disk.js';
import { MemoryFileStore } from '../../runtime/files/store/memory-store.js';
import { bearer } from './auth-harness.js';
import { adapters } from './harness.js';
import { rawFilePart } from './files-rules-harness.js';
import { status, upload, withFiles } from './files-harness.js';

const FILE_BYTES = 900_000;
const QUOTA = 3_000_000;

/**
 * A memory disk whose writes of a round advance in lock step, one chunk each at a time (a write that failed
 * or ended drops out): the uploads are all in flight at once and grow their reservations together, as
 * browser uploads at the same speed do, whatever order the server happened to read them in.
 */
function lockStepDisk() {
  const inner = memoryDisk();
  let expected = 0;
  const writes = new Set<{ pulled: number }>();
  let waiting: (() => void)[] = [];
  const changed = () => {
    const ready = waiting;
    waiting = [];
    for (const check of ready) check();
  };
  /** Resolves once every write of the round started and none is behind `pulled` chunks. */
  const turn = (pulled: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        const behind = [...writes].some((write) => write.pulled < pulled);
        if (writes.size + finished >= expected && !behind) resolve();
        else waiting.push(check);
      };
      check();
    });
  let finished = 0;
  const stepped = (content: DiskContent): AsyncIterable<Uint8Array> => {
    const iterator = (content as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const write = { pulled: 0 };
    writes.add(write);
    changed();
    const leave = () => {
      if (!writes.delete(write)) return;
      finished++;
      changed();
    };
    return {
      [Symbol.asyncIterator]: () => ({
        async next() {
          await turn(write.pulled);
          try {
            const step = await iterator.next();
            if (step.done === true) leave();
            write.pulled++;
            changed();
            return step;
          } catch (error) {
            leave();
            throw error;
          }
        },
        async return() {
          leave();
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      }),
    };
  };
  const disk: Disk = {
    driver: inner.driver,
    canStream: inner.canStream,
    put: (key, content, options) => inner.put(key, stepped(content), options),
    get: (key) => inner.get(key),
    getStream: (key) => inner.getStream(key),
    delete: (key) => inner.delete(key),
    exists: (key) => inner.exists(key),
  };
  /** Starts a round of `count` writes. */
  const round = (count: number) => {
    [expected, finished] = [count, 0];
  };
  return { disk, inner, round };
}

describe.each(adapters)('upload bounds on $name', (adapter) => {
  it('six concurrent 900 kB browser uploads on a 3 MB quota: exactly three stored; with 1.2 MB free, exactly one', async () => {
    const store = new MemoryFileStore();
    const { disk, inner, round } = lockStepDisk();
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        // FormData parts carry no Content-Length of their own, as browsers send them.
        const sendSix = () => {
          round(6);
          return Promise.all(
            Array.from({ length: 6 }, (_, index) =>
              upload(
                server.url,
                [
                  {
                    name: `${index}.bin`,
                    type: 'application/octet-stream',
                    bytes: Buffer.alloc(FILE_BYTES, index),
                  },
                ],
                alice,
              ),
            ),
          );
        };
        const first = (await sendSix()).map(status);
        expect(first.filter(([code]) => code === 201)).toHaveLength(3);
        expect(first.filter(([code]) => code !== 201)).toEqual(Array(3).fill([402, 'FILE_QUOTA_EXCEEDED']));
        const stored = await server.files.list();
        expect(stored.map((file) => file.size)).toEqual([FILE_BYTES, FILE_BYTES, FILE_BYTES]);
        // No reservation outlives its request: the quota holds exactly the three files.
        expect(await store.usedBytes('@single', Date.now())).toBe(3 * FILE_BYTES);
        expect(inner.usedBytes()).toBe(3 * FILE_BYTES);

        await server.files.delete(stored[0]!.id);
        const second = (await sendSix()).map(status);
        expect(second.filter(([code]) => code === 201)).toHaveLength(1);
        expect(second.filter(([code]) => code !== 201)).toEqual(Array(5).fill([402, 'FILE_QUOTA_EXCEEDED']));
        expect(await store.usedBytes('@single', Date.now())).toBe(3 * FILE_BYTES);
        expect(await server.files.list()).toHaveLength(3);
      },
      {
        files: {
          disk,
          store,
          maxTotalBytes: QUOTA,
          routes: { upload: { maxBytes: 1_000_000, maxFiles: 1 } },
        },
      },
    );
  });

  it('a part Content-Length that is not a byte count answers 400 STORAGE_CONTENT_LENGTH_INVALID, storing nothing', async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      for (const length of ['-1', '1.5', '5.0', '+5', 'abc', '9007199254740993']) {
        const answer = await rawFilePart(
          server.url,
          { headers: [`Content-Length: ${length}`], bytes: 'hello' },
          alice,
        );
        expect(status(answer), length).toEqual([400, 'STORAGE_CONTENT_LENGTH_INVALID']);
      }
      expect(await server.files.list()).toEqual([]);
      expect(server.disk.usedBytes()).toBe(0);
    });
  });
});
