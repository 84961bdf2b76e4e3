// Whether a process of this machine is still running, by pid: how the lock files (a PGlite directory's, a
// `svc make:*` run's) tell a holder from one that was killed before it could remove its lock.

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
