// `localDisk({ root })`: objects as files under one directory. The key's segments become directories and a
// file name under the root (checked keys cannot hold `..`, an absolute path or a dot name), and no symbolic
// link below the root is followed: each directory on the way is checked with lstat and files are opened with
// O_NOFOLLOW, so a link planted inside the root, to a directory or a file outside it, is refused rather than
// written through or read. The root itself may be a link; it is resolved once, on first use.
//
// Writes go to `.tmp-<random>` in the object's own directory (created O_EXCL, mode 0o600), written behind
// the reader in gathered writes, flushed to the device (fdatasync, partly in the background while the bytes
// arrive), then renamed over the key: a reader sees the old object or the whole new one, and a failed write
// removes its temporary file once no write on it is in flight. Directories are made on demand with mode
// 0o700 and left in place when emptied. Reads stream from an open file handle in 64 KiB chunks.
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import type { Disk, DiskContent, DiskPutOptions, DiskPutResult } from './disk.js';
import { keyRefused, objectMissing } from './disk-errors.js';
import { putLimits, readContent } from './read-content.js';
import { keySegments } from './storage-key.js';
import { WriteBehind, type WriteBehindOptions } from './write-behind.js';

export interface LocalDiskOptions {
  /** The directory holding every object; made (mode 0o700) when missing. Relative to the working directory. */
  root: string;
}

export interface LocalDisk extends Disk {
  readonly driver: 'local';
  readonly canStream: true;
  /** The root as given, made absolute. */
  readonly root: string;
  getStream(key: string): Promise<Readable>;
  size(key: string): Promise<number | null>;
}

const OPTION_KEYS = optionKeys<LocalDiskOptions>({ root: true });
const OWNER = 'localDisk()';
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;
const READ_CHUNK_BYTES = 64 * 1024;
const KIB = 1024;
const MIB = 1024 * KIB;
/**
 * Up to 256 KiB waits behind the write in flight: the bytes were just hashed, and a batch that still sits
 * in the core's cache (1 MiB of L2 on the bench machine) is copied into the page cache far faster. In the
 * upload bench 1 MiB cost 0.4–0.8 s more CPU per GiB whenever the machine's shared cache was busy, and
 * 64 KiB to 256 KiB did best. 64 chunks bound a sender of tiny chunks; network reads of 64 KiB reach the
 * byte bound first. A background flush every 32 MiB leaves the last fdatasync little to do.
 */
const WRITE_BEHIND: WriteBehindOptions = {
  maxQueuedBytes: 256 * KIB,
  maxQueuedChunks: 64,
  syncEveryBytes: 32 * MIB,
};
/** Where the platform lacks O_NOFOLLOW the lstat check before opening still applies. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

export function localDisk(options: LocalDiskOptions): LocalDisk {
  if (options === null || typeof options !== 'object') throw invalidOptions(OWNER);
  rejectUnknownOptions(options, OPTION_KEYS, OWNER);
  if (typeof options.root !== 'string' || options.root.length === 0 || options.root.includes('\0')) {
    throw invalidOption(OWNER, 'root', 'a directory path');
  }
  const root = resolve(options.root);
  let realRoot: Promise<string> | undefined;
  const rootDirectory = (): Promise<string> => {
    realRoot ??= mkdir(root, { recursive: true, mode: DIRECTORY_MODE }).then(() => realpath(root));
    // A failure (a root that cannot be made) is retried on the next call rather than kept.
    realRoot.catch(() => (realRoot = undefined));
    return realRoot;
  };

  /** The object's directory, made when `create`; null when a directory on the way is missing. */
  const directoryOf = async (segments: string[], create: boolean): Promise<string | null> => {
    let directory = await rootDirectory();
    for (const segment of segments.slice(0, -1)) {
      directory = join(directory, segment);
      let stats = await lstatOrNull(directory);
      if (stats === null) {
        if (!create) return null;
        await mkdir(directory, { mode: DIRECTORY_MODE }).catch((error: unknown) => {
          if (codeOf(error) !== 'EEXIST') throw error;
        });
        stats = await lstat(directory);
      }
      if (stats.isSymbolicLink()) throw keyRefused('symlink');
      if (!stats.isDirectory()) throw keyRefused('not-a-directory');
    }
    return directory;
  };

  /** The object's path and its lstat (null when missing); a link or a non-file there is refused. */
  const locate = async (key: string): Promise<{ path: string; stats: Stats | null } | null> => {
    const segments = keySegments(key);
    const directory = await directoryOf(segments, false);
    if (directory === null) return null;
    const path = join(directory, segments[segments.length - 1] as string);
    const stats = await lstatOrNull(path);
    if (stats?.isSymbolicLink()) throw keyRefused('symlink');
    if (stats !== null && !stats.isFile()) throw keyRefused('not-a-file');
    return { path, stats };
  };

  /** An open handle on the object's file, never through a link. */
  const openObject = async (key: string): Promise<FileHandle> => {
    const found = await locate(key);
    if (found?.stats == null) throw objectMissing();
    let handle: FileHandle;
    try {
      handle = await open(found.path, constants.O_RDONLY | NO_FOLLOW);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') throw objectMissing();
      // ELOOP: the file was swapped for a link since the lstat.
      if (codeOf(error) === 'ELOOP') throw keyRefused('symlink');
      throw error;
    }
    const stats = await handle.stat().catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    if (!stats.isFile()) {
      await handle.close();
      throw keyRefused('not-a-file');
    }
    return handle;
  };

  return {
    driver: 'local',
    canStream: true,
    root,

    async put(key: string, content: DiskContent, putOptions?: DiskPutOptions): Promise<DiskPutResult> {
      const segments = keySegments(key);
      const limits = putLimits('localDisk().put()', putOptions);
      const directory = (await directoryOf(segments, true)) as string;
      const target = join(directory, segments[segments.length - 1] as string);
      const existing = await lstatOrNull(target);
      if (existing?.isSymbolicLink()) throw keyRefused('symlink');
      if (existing !== null && !existing.isFile()) throw keyRefused('not-a-file');

      const temporary = join(directory, `.tmp-${randomBytes(12).toString('hex')}`);
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
      const handle = await open(temporary, flags, FILE_MODE);
      const writer = new WriteBehind(handle, WRITE_BEHIND);
      let handleOpen = true;
      let committed = false;
      try {
        const result = await readContent(content, limits, (chunk) => writer.write(chunk));
        await writer.finish();
        handleOpen = false;
        await handle.close();
        await rename(temporary, target);
        committed = true;
        return result;
      } finally {
        if (!committed) {
          await writer.abandon();
          if (handleOpen) await handle.close().catch(() => undefined);
          await unlink(temporary).catch(() => undefined);
        }
      }
    },

    async get(key: string): Promise<Buffer> {
      const handle = await openObject(key);
      try {
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    },

    async getStream(key: string): Promise<Readable> {
      const handle = await openObject(key);
      // The stream owns the handle from here and closes it when it ends or is destroyed.
      return handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES });
    },

    async delete(key: string): Promise<boolean> {
      const found = await locate(key);
      if (found?.stats == null) return false;
      try {
        await unlink(found.path);
        return true;
      } catch (error) {
        if (codeOf(error) === 'ENOENT') return false;
        throw error;
      }
    },

    async exists(key: string): Promise<boolean> {
      const found = await locate(key);
      return found?.stats != null;
    },

    async size(key: string): Promise<number | null> {
      const found = await locate(key);
      return found?.stats?.size ?? null;
    },
  };
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw error;
  }
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
