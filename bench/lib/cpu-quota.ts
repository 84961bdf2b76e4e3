// Caps a process at a share of one core through the cgroup v1 `cpu` controller (CFS quota), so a bench can
// run in the server-bound regime: the server, not the load generator, limits throughput. Where cgroups are
// not writable (cpuQuotasAvailable() is false) the bench reports only the unthrottled regime.
import { accessSync, constants, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CPU_CGROUP_ROOT = '/sys/fs/cgroup/cpu';
/** A short period keeps throttling smooth: the server runs in 5 ms slices instead of 50 ms bursts. */
const PERIOD_US = 10_000;

export interface CpuQuota {
  release(): void;
}

/** True when this process may create cgroups under the cgroup v1 `cpu` controller. */
export function cpuQuotasAvailable(): boolean {
  try {
    accessSync(join(CPU_CGROUP_ROOT, 'cgroup.procs'), constants.W_OK);
    accessSync(CPU_CGROUP_ROOT, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Puts `pid` (every thread of it) in a new cgroup capped at `share` of one core. Throws when that fails. */
export function limitCpu(pid: number, share: number): CpuQuota {
  const dir = join(CPU_CGROUP_ROOT, `svc-bench-${pid}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
  writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(PERIOD_US * share)));
  // cgroup.procs moves every thread of the process, including those V8 already started.
  writeFileSync(join(dir, 'cgroup.procs'), String(pid));
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
