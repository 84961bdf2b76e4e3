// One `svc make:*` at a time per project. Each run reads the spec, picks the next migration number and
// writes both: two runs at once would both read the same spec and one's entries would be lost, or both take
// the same number. The lock is taken before anything is read (a file created only if absent) and held until
// the run ends; a later run waits for it. A lock left by a run that was killed is not taken over (two
// waiters could both remove it and both go on): the message says to delete it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from '../shared/process-alive.js';

/** How long a run waits for another one before giving up. */
const WAIT_MS = 120_000;
const POLL_MS = 50;

/** Runs `work` holding `<baseDir>/.svc/make.lock`, waiting while another run holds it. */
export async function withProjectLock<T>(baseDir: string, work: () => Promise<T>): Promise<T> {
  const dir = join(baseDir, '.svc');
  const lock = join(dir, 'make.lock');
  await mkdir(dir, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  // The pid, and a token of this run: only the run that wrote it removes it (not one whose lock was deleted
  // by hand and taken by another run meanwhile, nor another run of this process).
  const mine = `${process.pid}\n${randomUUID()}\n`;
  for (;;) {
    try {
      await writeFile(lock, mine, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(lock, 'utf8').catch(() => '')).split('\n')[0]);
    // An empty file is a lock being written; a number is the process holding it.
    if (Number.isInteger(holder) && holder > 0 && !isProcessAlive(holder)) {
      throw new Error(
        `.svc/make.lock is left by svc make:* process ${holder}, which stopped before it finished: check the project (git status), delete .svc/make.lock and run again.`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `another svc make:* has been running in this project for ${WAIT_MS / 1000} s (process ${holder || 'unknown'}, .svc/make.lock); try again when it ends.`,
      );
    }
    await sleep(POLL_MS);
  }
  try {
    return await work();
  } finally {
    if ((await readFile(lock, 'utf8').catch(() => '')) === mine) await rm(lock, { force: true });
  }
}
