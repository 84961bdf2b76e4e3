// Resident memory of a bench server, read from /proc: the current size, and the peak over a stretch of time.
// The peak comes from two sources, whichever is higher: VmRSS sampled every ~20 ms, and the kernel's own
// high-water mark VmHWM, reset at the start of the stretch (writing 5 to clear_refs), which misses no spike.
import { readFileSync, writeFileSync } from 'node:fs';

const SAMPLE_INTERVAL_MS = 20;

/** A /proc/<pid>/status field in bytes (the kernel reports kB). */
function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]) * 1024;
}

export function residentBytes(pid: number): number {
  return statusField(pid, 'VmRSS');
}

export interface PeakTracker {
  /** Stops sampling; the highest resident size seen since the tracker started, in bytes. */
  stop(): number;
}

/** Starts watching `pid`'s resident size. */
export function trackPeak(pid: number): PeakTracker {
  let hwmReset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false; // not permitted here: the samples alone give the peak
  }
  let peak = residentBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, residentBytes(pid));
    } catch {
      // the process exited; stop() reports what was seen
    }
  }, SAMPLE_INTERVAL_MS);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, residentBytes(pid), hwmReset ? statusField(pid, 'VmHWM') : 0);
      } catch {
        // the process exited
      }
      return peak;
    },
  };
}
