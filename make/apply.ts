// Writing a command's files as one change: each file's previous state (its bytes, or its absence) is noted
// before it is written, and a write that fails puts every earlier one back, so a run that cannot finish
// leaves the project as it found it.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One file to write: an absolute path and its new content. */
export interface FileWrite {
  target: string;
  content: string;
}

interface Undo {
  target: string;
  previous: string | undefined;
  /** Folders this write created, deepest first. */
  createdDirs: string[];
}

/** Folders `mkdir -p` would create for `dir`, deepest first. */
function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = dirname(current)) {
    missing.push(current);
    if (dirname(current) === current) break;
  }
  return missing;
}

/** Writes every file in order; on the first failure restores the ones written and rethrows. */
export async function applyWrites(writes: readonly FileWrite[]): Promise<void> {
  const done: Undo[] = [];
  try {
    for (const { target, content } of writes) {
      const previous = existsSync(target) ? await readFile(target, 'utf8') : undefined;
      const createdDirs = missingDirs(dirname(target));
      done.push({ target, previous, createdDirs });
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  } catch (error) {
    for (const { target, previous, createdDirs } of done.reverse()) {
      // Best effort: the original failure is what the user must see.
      await (previous === undefined ? rm(target, { force: true }) : writeFile(target, previous)).catch(
        () => {},
      );
      for (const dir of createdDirs) await rmdir(dir).catch(() => {});
    }
    throw error;
  }
}
