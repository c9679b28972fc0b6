import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers this process's CPU priority to the nice value `nice` (1–19; 0 leaves it alone). On Linux
 * a nice value belongs to a thread, not to the process: the calling thread is lowered first, then
 * every thread already running (/proc/self/task); threads started later inherit it from the thread
 * that starts them. Elsewhere the process's priority is set. A thread already lower is left as is
 * (raising it back would need privileges).
 */
export function lowerCpuPriority(nice: number): void {
  if (nice === 0) return;
  const lower = (id: number) => {
    if (getPriority(id) < nice) setPriority(id, nice);
  };
  lower(0);
  for (const thread of runningThreads()) lower(thread);
}

function runningThreads(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the process's priority, set above, is all there is.
    return [];
  }
}
