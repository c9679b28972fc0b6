import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of the benchmark's processes, from Linux `/proc`, so a run can say where the time went
 * (Temporal, PostgreSQL, API, worker, load generator) even when the machine is shared.
 */

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Stat {
  pid: number;
  ppid: number;
  /** Own user + system time, plus that of children it has reaped (exited PostgreSQL backends). */
  cpuMs: number;
}

function readStat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
    return { pid, ppid: Number(fields[1]), cpuMs: ticks * TICK_MS };
  } catch {
    return null;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function allStats(): Stat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is Stat => stat !== null);
}

/** CPU milliseconds used so far by `pid` and every live descendant (and the children they reaped). */
export function treeCpuMs(pid: number): number {
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  let total = 0;
  const visit = (current: number) => {
    total += stats.find((stat) => stat.pid === current)?.cpuMs ?? 0;
    for (const child of children.get(current) ?? []) visit(child.pid);
  };
  visit(pid);
  return total;
}

/** The oldest process whose command line contains every one of `parts` (a server started elsewhere). */
export function findProcess(...parts: string[]): number | null {
  const matches = allStats()
    .map((stat) => stat.pid)
    .filter((pid) => {
      const line = commandLine(pid);
      return parts.every((part) => line.includes(part));
    })
    .sort((a, b) => a - b);
  return matches[0] ?? null;
}

/** CPU used by named process trees between `start()` and `stop()`, in ms. */
export function cpuMeter(processes: Record<string, number | null>) {
  const named = Object.entries(processes).filter((entry): entry is [string, number] => entry[1] !== null);
  const before = new Map(named.map(([name, pid]) => [name, treeCpuMs(pid)]));
  const ownBefore = process.cpuUsage();
  return {
    stop(): Record<string, number> {
      const own = process.cpuUsage(ownBefore);
      return {
        ...Object.fromEntries(named.map(([name, pid]) => [name, treeCpuMs(pid) - (before.get(name) ?? 0)])),
        'load generator': (own.user + own.system) / 1000,
      };
    },
  };
}
