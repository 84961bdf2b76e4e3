// localDisk: confinement to its root (keys and symbolic links), atomic writes that leave no temporary
// file, streamed reads, file modes.
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localDisk, type LocalDisk } from '../../../runtime/files/disks/index.js';
import { bytes, failingSource, listTree, recordingSource } from './disk-helpers.js';

let base: string;
let root: string;
let outside: string;
let disk: LocalDisk;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-local-disk-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'secret'), 'outside the root');
  disk = localDisk({ root });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const refused = { status: 500, code: 'INTERNAL_ERROR' };

describe('localDisk layout', () => {
  it('stores a key as directories and a file under the root, with private modes', async () => {
    await disk.put('tenant-1/file-1', bytes('content'));
    expect(await readFile(join(root, 'tenant-1', 'file-1'), 'utf8')).toBe('content');
    expect(await listTree(root)).toEqual(['tenant-1', 'tenant-1/file-1']);
    if (process.platform !== 'win32') {
      expect((await stat(join(root, 'tenant-1'))).mode & 0o777).toBe(0o700);
      expect((await stat(join(root, 'tenant-1', 'file-1'))).mode & 0o777).toBe(0o600);
    }
  });

  it('stores a stream faster than the disk whole and in order, with the checksum of its bytes', async () => {
    // 40 MiB in 64 KiB chunks: written behind the reader in gathered writes, flushed on the way.
    const chunks = Array.from({ length: 640 }, (_, index) => Buffer.alloc(64 * 1024, index % 251));
    const whole = Buffer.concat(chunks);
    const stored = await disk.put('t/big', Readable.from(chunks));
    expect(stored).toEqual({
      size: whole.byteLength,
      checksum: createHash('sha256').update(whole).digest('hex'),
    });
    expect((await readFile(join(root, 't', 'big'))).equals(whole)).toBe(true);
    expect(await listTree(root)).toEqual(['t', 't/big']);
  });

  it('refuses unknown options and a missing root', () => {
    expect(() => localDisk({ root, fsync: false } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN' }),
    );
    expect(() => localDisk({} as never)).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
  });
});

describe('localDisk leaves nothing behind on a failed write', () => {
  beforeEach(async () => {
    await disk.put('t/kept', bytes('kept'));
  });
  const onlyKept = ['t', 't/kept'];

  it.each([
    ['more bytes than declared', { contentLength: 3 }],
    ['fewer bytes than declared', { contentLength: 100 }],
  ])('%s: no object, no temporary file', async (_, options) => {
    await expect(
      disk.put('t/f', recordingSource([bytes('abcd'), bytes('efgh')]).source, options),
    ).rejects.toMatchObject({
      code: 'STORAGE_CONTENT_LENGTH_MISMATCH',
    });
    expect(await listTree(root)).toEqual(onlyKept);
  });

  it('a source that errors half-way: no object, no temporary file, the old object intact', async () => {
    await expect(disk.put('t/f', failingSource([randomBytes(70_000)]))).rejects.toThrow('source broke');
    await expect(disk.put('t/kept', failingSource([randomBytes(70_000)]))).rejects.toThrow('source broke');
    expect(await listTree(root)).toEqual(onlyKept);
    expect(await readFile(join(root, 't', 'kept'), 'utf8')).toBe('kept');
  });

  it('a source that fails while earlier chunks are still being written: no object, no temporary file', async () => {
    const chunks = Array.from({ length: 48 }, () => randomBytes(64 * 1024));
    await expect(disk.put('t/f', failingSource(chunks))).rejects.toThrow('source broke');
    expect(await listTree(root)).toEqual(onlyKept);
  });

  it('an abort: no object, no temporary file', async () => {
    const source = new Readable({ read() {} });
    source.push(randomBytes(1000));
    const controller = new AbortController();
    const writing = disk.put('t/f', source, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await expect(writing).rejects.toMatchObject({ name: 'AbortError' });
    expect(await listTree(root)).toEqual(onlyKept);
  });

  it('a write past maxBytes: no object, no temporary file', async () => {
    await expect(
      disk.put('t/f', Readable.from([randomBytes(600), randomBytes(600)]), { maxBytes: 1000 }),
    ).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    expect(await listTree(root)).toEqual(onlyKept);
  });
});

describe('localDisk confinement', () => {
  it('refuses a symlinked directory inside the root pointing outside, for every operation', async () => {
    await mkdir(root, { recursive: true });
    await symlink(outside, join(root, 'evil'), 'dir');
    await expect(disk.put('evil/planted', bytes('x'))).rejects.toMatchObject(refused);
    await expect(disk.get('evil/secret')).rejects.toMatchObject(refused);
    await expect(disk.getStream('evil/secret')).rejects.toMatchObject(refused);
    await expect(disk.exists('evil/secret')).rejects.toMatchObject(refused);
    await expect(disk.delete('evil/secret')).rejects.toMatchObject(refused);
    await expect(lstat(join(outside, 'planted'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(outside, 'secret'), 'utf8')).toBe('outside the root');
  });

  it('refuses a symlinked file inside the root pointing outside, for put, get, stream and delete', async () => {
    await mkdir(join(root, 't'), { recursive: true });
    await symlink(join(outside, 'secret'), join(root, 't', 'link'));
    await expect(disk.put('t/link', bytes('overwritten'))).rejects.toMatchObject(refused);
    await expect(disk.get('t/link')).rejects.toMatchObject(refused);
    await expect(disk.getStream('t/link')).rejects.toMatchObject(refused);
    await expect(disk.delete('t/link')).rejects.toMatchObject(refused);
    expect(await readFile(join(outside, 'secret'), 'utf8')).toBe('outside the root');
    expect((await lstat(join(root, 't', 'link'))).isSymbolicLink()).toBe(true);
  });

  it('works under a root that is itself a symbolic link', async () => {
    await mkdir(root, { recursive: true });
    const linkedRoot = join(base, 'linked-root');
    await symlink(root, linkedRoot, 'dir');
    const linked = localDisk({ root: linkedRoot });
    await linked.put('t/f', bytes('via link'));
    expect(await readFile(join(root, 't', 'f'), 'utf8')).toBe('via link');
  });

  it('refuses a key whose directory is a file', async () => {
    await disk.put('t/f', bytes('x'));
    await expect(disk.put('t/f/g', bytes('y'))).rejects.toMatchObject(refused);
    await expect(disk.get('t')).rejects.toMatchObject(refused);
  });
});

describe('localDisk streamed reads', () => {
  it('streams an 8 MiB object back in chunks', async () => {
    const content = randomBytes(8 * 1024 * 1024);
    const source = Readable.from(
      Array.from({ length: 128 }, (_, index) => content.subarray(index * 65536, (index + 1) * 65536)),
    );
    const result = await disk.put('t/big', source, { contentLength: content.byteLength });
    expect(result.checksum).toBe(createHash('sha256').update(content).digest('hex'));

    const stream = await disk.getStream('t/big');
    const hash = createHash('sha256');
    let chunks = 0;
    let largest = 0;
    for await (const chunk of stream) {
      chunks++;
      largest = Math.max(largest, (chunk as Buffer).byteLength);
      hash.update(chunk as Buffer);
    }
    expect(hash.digest('hex')).toBe(result.checksum);
    expect(chunks).toBeGreaterThanOrEqual(100);
    expect(largest).toBeLessThanOrEqual(64 * 1024);
    expect(await disk.size('t/big')).toBe(content.byteLength);
  });

  it('closes the file when the stream is destroyed early', async () => {
    await disk.put('t/f', randomBytes(256 * 1024));
    const stream = await disk.getStream('t/f');
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.destroy();
    await closed;
    expect(await disk.delete('t/f')).toBe(true);
  });
});
