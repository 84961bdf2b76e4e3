// Caps a process at a share of one core through the cgroup v1 `cpu` controller (CFS quota), so a bench can
// run in the server-bound regime: the server, not the load generator, limits throughput. Returns undefined
// when cgroups are not writable here (the bench then reports only the unthrottled regime).
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CPU_CGROUP_ROOT = '/sys/fs/cgroup/cpu';
/** A short period keeps throttling smooth: the server runs in 5 ms slices instead of 50 ms bursts. */
const PERIOD_US = 10_000;

export interface CpuQuota {
  release(): void;
}

export function limitCpu(pid: number, share: number): CpuQuota | undefined {
  if (!existsSync(join(CPU_CGROUP_ROOT, 'cgroup.procs'))) return undefined;
  const dir = join(CPU_CGROUP_ROOT, `svc-bench-${pid}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(PERIOD_US * share)));
    // cgroup.procs moves every thread of the process, including those V8 already started.
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch {
    return undefined;
  }
  return {
    release() {
      try {
        rmdirSync(dir);
      } catch {
        // The process may still be exiting; the kernel frees an empty group's memory when it is removed later.
      }
    },
  };
}
