import { setTimeout as sleep } from 'node:timers/promises';
import { treeCpuMs } from './process-cpu';
import { linearFit, summarize, type Summary } from './summary';
import { residentBytes } from './temporal-worker';

/**
 * A plateau of calls (or timer children) in flight, sampled at a fixed interval: CPU of each
 * process, resident memory, how many are in flight and how many ended in each interval.
 */

export interface PlateauProbe {
  /** How many are in flight now. */
  inFlight(): Promise<number>;
  /** How many have ended so far (a counter; its growth per interval is the turnover). */
  ended(): Promise<number>;
}

export interface Interval {
  seconds: number;
  inFlight: number;
  endedPerSecond: number;
  /** CPU ms per second, by process name. */
  cpuPerSecond: Record<string, number>;
}

export interface Plateau {
  seconds: number;
  intervals: Interval[];
  /** RSS (bytes) by process name: the mean and the peak over the samples. */
  rss: Record<string, { mean: number; peak: number }>;
  inFlight: Summary;
}

/** Samples `processes` every `everySeconds` for `seconds`. */
export async function samplePlateau(
  processes: Record<string, number | null>,
  probe: PlateauProbe,
  seconds: number,
  everySeconds: number,
): Promise<Plateau> {
  const named = Object.entries(processes).filter((entry): entry is [string, number] => entry[1] !== null);
  const cpuOf = () => Object.fromEntries(named.map(([name, pid]) => [name, treeCpuMs(pid)]));
  const rssSamples = new Map<string, number[]>(named.map(([name]) => [name, []]));
  const sampleRss = () => {
    for (const [name, pid] of named) rssSamples.get(name)?.push(residentBytes(pid) ?? 0);
  };
  const started = performance.now();
  let previousAt = started;
  let previousCpu = cpuOf();
  let previousEnded = await probe.ended();
  const intervals: Interval[] = [];
  const rssTimer = setInterval(sampleRss, 1000);
  try {
    while (performance.now() - started < seconds * 1000) {
      await sleep(Math.min(everySeconds * 1000, seconds * 1000 - (performance.now() - started)));
      const now = performance.now();
      const cpu = cpuOf();
      // One after the other: a probe may share one database connection between the two.
      const inFlight = await probe.inFlight();
      const ended = await probe.ended();
      const elapsed = (now - previousAt) / 1000;
      intervals.push({
        seconds: elapsed,
        inFlight,
        endedPerSecond: (ended - previousEnded) / elapsed,
        cpuPerSecond: Object.fromEntries(
          named.map(([name]) => [name, ((cpu[name] ?? 0) - (previousCpu[name] ?? 0)) / elapsed]),
        ),
      });
      previousAt = now;
      previousCpu = cpu;
      previousEnded = ended;
    }
  } finally {
    clearInterval(rssTimer);
  }
  sampleRss();
  const rss = Object.fromEntries(
    [...rssSamples].map(([name, values]) => [name, { mean: summarize(values).mean, peak: Math.max(...values) }]),
  );
  return {
    seconds: (performance.now() - started) / 1000,
    intervals,
    rss,
    inFlight: summarize(intervals.map((interval) => interval.inFlight)),
  };
}

/** Mean CPU ms per second of `names` together over the plateau. */
export function meanCpuPerSecond(plateau: Plateau, names: readonly string[]): number {
  const total = plateau.intervals.reduce(
    (sum, interval) =>
      sum + names.reduce((own, name) => own + (interval.cpuPerSecond[name] ?? 0) * interval.seconds, 0),
    0,
  );
  const seconds = plateau.intervals.reduce((sum, interval) => sum + interval.seconds, 0);
  return seconds > 0 ? total / seconds : NaN;
}

/**
 * CPU of `names` split into what the plateau costs while everything only waits and what each
 * ending costs: a least-squares line of CPU ms/s on endings/s over the intervals. The intercept is
 * the cost at zero turnover (calls only waiting); the slope, CPU ms per call that ended and was
 * replaced. When the turnover never varied (and was not zero) the split is unknown (NaN).
 */
export function waitingCost(
  plateau: Plateau,
  names: readonly string[],
): { waitingMsPerSecond: number; msPerEnding: number } {
  const xs = plateau.intervals.map((interval) => interval.endedPerSecond);
  const ys = plateau.intervals.map((interval) =>
    names.reduce((sum, name) => sum + (interval.cpuPerSecond[name] ?? 0), 0),
  );
  const { slope, intercept } = linearFit(xs, ys);
  // No call ended in any interval: every interval measured the waiting alone.
  if (Number.isNaN(slope)) return { waitingMsPerSecond: xs.every((x) => x === 0) ? intercept : NaN, msPerEnding: NaN };
  return { waitingMsPerSecond: intercept, msPerEnding: slope };
}
