// A `pglite:` directory serves one process: PGlite has no lock of its own, and two processes writing one data
// directory corrupt it. `<dir>/svc.lock` holds the owner's pid. A lock whose pid is gone (a crash, a kill -9) is
// stale and taken over. Not guarded: two processes taking over one stale lock at the same instant, and a pid
// reused by an unrelated process (the lock then reads as held; delete the file).
import fs from 'node:fs';
import path from 'node:path';
import { errors } from '../../../generated/modules/errors.js';
import { isProcessAlive } from '../../../shared/process-alive.js';

const LOCK_FILE = 'svc.lock';

/** Directories this process holds: its own pid in a lock file is stale unless listed here (pid 1 in a container). */
const heldHere = new Set<string>();

/** The pid in the lock file; undefined when the file is gone; NaN when it holds no pid. */
function readHolder(file: string): number | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : Number.NaN;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function locked(dir: string, holder: string): Error {
  return errors.STORE_LOCKED({
    message: `The embedded database in ${dir} is in use by ${holder}; a pglite: directory serves one process (use PostgreSQL to share data).`,
    details: { dir },
  });
}

export interface DirLock {
  release(): void;
}

/** Takes `<dir>/svc.lock` (creating `dir`), or throws STORE_LOCKED naming the holder. */
export function lockDirectory(dir: string): DirLock {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  if (heldHere.has(file)) throw locked(dir, `this process (pid ${process.pid})`);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      // 'wx' fails when the file exists: of two processes creating it, one wins.
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      heldHere.add(file);
      return { release: () => releaseLock(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    if (holder === undefined) continue; // released meanwhile: try again
    // No pid: another process is writing it this very moment, or crashed while doing so. Refuse; the message
    // names the file so a person can remove it.
    if (Number.isNaN(holder)) throw locked(dir, `an unknown process (${file} holds no pid)`);
    if (holder !== process.pid && isProcessAlive(holder)) throw locked(dir, `pid ${holder}`);
    fs.rmSync(file, { force: true }); // stale: its process is gone
  }
  throw locked(dir, 'another process');
}

function releaseLock(file: string): void {
  if (!heldHere.delete(file)) return;
  // Only our own lock: never remove one another process took over.
  if (readHolder(file) === process.pid) fs.rmSync(file, { force: true });
}
