// memoryDisk: its total cap, and its isolation from callers' buffers.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { memoryDisk } from '../../../runtime/files/disks/index.js';

describe('memoryDisk maxBytes', () => {
  it('refuses a write that would pass the total with 413 FILE_TOO_LARGE, cancelling the source', async () => {
    const disk = memoryDisk({ maxBytes: 1000 });
    await disk.put('t/a', Buffer.alloc(600));
    const source = Readable.from([Buffer.alloc(300), Buffer.alloc(300), Buffer.alloc(300)]);
    await expect(disk.put('t/b', source)).rejects.toMatchObject({
      status: 413,
      code: 'FILE_TOO_LARGE',
      details: { limit: 'disk.maxBytes' },
    });
    expect(source.destroyed).toBe(true);
    expect(await disk.exists('t/b')).toBe(false);
    expect(disk.usedBytes()).toBe(600);
    await disk.put('t/b', Buffer.alloc(400));
    expect(disk.usedBytes()).toBe(1000);
  });

  it('counts the object a write replaces as freed, and a delete frees its bytes', async () => {
    const disk = memoryDisk({ maxBytes: 1000 });
    await disk.put('t/a', Buffer.alloc(900));
    await disk.put('t/a', Buffer.alloc(1000));
    expect(disk.usedBytes()).toBe(1000);
    expect(await disk.delete('t/a')).toBe(true);
    expect(disk.usedBytes()).toBe(0);
  });

  it('holds writes in flight against the cap together', async () => {
    const disk = memoryDisk({ maxBytes: 1000 });
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, index) =>
        disk.put(`t/${index}`, Readable.from([Buffer.alloc(200), Buffer.alloc(200)])),
      ),
    );
    const stored = results.filter((result) => result.status === 'fulfilled').length;
    // Interleaved, the first chunks of all four hold 800 bytes, so only one write can finish.
    expect(stored).toBe(1);
    expect(disk.usedBytes()).toBe(400);
    // The refused writes gave their reservations back.
    await disk.put('t/rest', Buffer.alloc(600));
    expect(disk.usedBytes()).toBe(1000);
  });

  it('refuses a bad cap and unknown options', () => {
    expect(() => memoryDisk({ maxBytes: -1 })).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
    expect(() => memoryDisk({ maxbytes: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN' }),
    );
  });
});

describe('memoryDisk isolation', () => {
  it('keeps its own copy of written chunks and of what it hands out', async () => {
    const disk = memoryDisk();
    const chunk = Buffer.from('original');
    await disk.put('t/a', Readable.from([chunk]));
    chunk.fill(0);
    const read = await disk.get('t/a');
    read.fill(0);
    expect((await disk.get('t/a')).toString()).toBe('original');
  });

  it('streams in chunks', async () => {
    const disk = memoryDisk();
    await disk.put('t/big', Buffer.alloc(300 * 1024, 7));
    let chunks = 0;
    let total = 0;
    for await (const chunk of await disk.getStream('t/big')) {
      chunks++;
      total += (chunk as Buffer).byteLength;
    }
    expect(chunks).toBe(5);
    expect(total).toBe(300 * 1024);
  });
});
