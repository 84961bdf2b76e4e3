// Puts generated files on disk, or compares them with the disk in check mode. A file is rewritten only
// when its bytes changed, through a temporary file and a rename, so no reader ever sees half a file.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { GeneratedFile } from './generate.js';

export type FileStatus = 'written' | 'unchanged' | 'stale';

export interface FileReport {
  /** Absolute path. */
  path: string;
  status: FileStatus;
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Check mode: a file whose bytes differ, or that is missing, is 'stale'. Writes nothing. */
export async function compareFiles(files: readonly GeneratedFile[]): Promise<FileReport[]> {
  return Promise.all(
    files.map(async (file) => {
      const current = await readIfExists(file.path);
      const same = current !== undefined && current.equals(Buffer.from(file.content));
      return { path: file.path, status: same ? 'unchanged' : 'stale' } satisfies FileReport;
    }),
  );
}

export async function writeFiles(files: readonly GeneratedFile[]): Promise<FileReport[]> {
  return Promise.all(
    files.map(async (file) => {
      const bytes = Buffer.from(file.content);
      const current = await readIfExists(file.path);
      if (current?.equals(bytes)) return { path: file.path, status: 'unchanged' } satisfies FileReport;
      await writeAtomically(file.path, bytes);
      return { path: file.path, status: 'written' } satisfies FileReport;
    }),
  );
}

export async function writeAtomically(path: string, bytes: Buffer | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, bytes);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Files directly in `outDir` that this build did not produce (a route file left over from an older spec).
 * Folders (generated/modules/) and dotfiles are not ours to judge; nothing is ever deleted.
 */
export async function unexpectedFiles(outDir: string, expected: readonly string[]): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(outDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const known = new Set(expected);
  return entries
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => join(outDir, entry.name))
    .filter((path) => !known.has(path))
    .sort();
}
