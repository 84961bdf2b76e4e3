// One `svc make:*` at a time per project. Each run reads the spec, picks the next migration number and
// writes both: two runs at once would both read the same spec and one's entries would be lost, or both take
// the same number. The lock is taken before anything is read (a file created only if absent) and held until
// the run ends; a later run waits for it. A lock left by a run that was killed is not taken over (two
// waiters could both remove it and both go on): the message says to delete it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a run waits for another one before giving up. */
const WAIT_MS = 120_000;
const POLL_MS = 50;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `work` holding `<baseDir>/.svc/make.lock`, waiting while another run holds it. */
export async function withProjectLock<T>(baseDir: string, work: () => Promise<T>): Promise<T> {
  const dir = join(baseDir, '.svc');
  const lock = join(dir, 'make.lock');
  await mkdir(dir, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(lock, 'utf8').catch(() => ''));
    // An empty file is a lock being written; a number is the process holding it.
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
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
    await rm(lock, { force: true });
  }
}
