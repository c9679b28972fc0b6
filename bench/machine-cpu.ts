import { readFileSync } from 'node:fs';

/** Busy and total CPU ticks of the whole machine, from the first line of /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  // idle and iowait
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * How busy the whole machine was between `start` and `stop`, in percent of all its cores: the other
 * work sharing them (other people's tests on a shared machine) shows here and in no process figure.
 */
export function machineCpuMeter() {
  const before = machineTicks();
  return {
    stop(): number {
      const after = machineTicks();
      const total = after.total - before.total;
      return total > 0 ? ((after.busy - before.busy) / total) * 100 : NaN;
    },
  };
}
