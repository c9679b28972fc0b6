import type { TurnLatency } from '../agent-runtime/contract';
import { percentile, type Percentiles } from './voice-figures';

/** What the web calls and the phone calls of one run measured, per path, and the difference. */

export interface PathCall {
  runId: number | null;
  /** Caller side: the caller's last voiced sound to the first sound of the agent's reply, per answered turn. */
  heardMs: number[];
  failure: string | null;
}

export interface PathRun {
  id: number;
  isCompleted: boolean;
  callStatus: string | null;
  turnLatency: TurnLatency[];
}

export interface PathFigures {
  path: string;
  calls: number;
  /** Turns heard by the caller, of `planned`; failed calls and why (the first few). */
  turns: number;
  planned: number;
  failures: string[];
  heard: Percentiles;
  /** The run's own turn latency (`logs.turn_latency`): the detector's silence, then end of speech to first audio out. */
  endpointing: Percentiles;
  total: Percentiles;
  /**
   * Per turn, what the pipeline does not see: heard − endpointing − total, the audio's way in and
   * out (calls whose heard and recorded turns pair one to one).
   */
  outside: Percentiles;
}

const percentiles = (values: number[]): Percentiles => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

export function pathFigures(path: string, calls: PathCall[], runs: PathRun[], turnsPerCall: number): PathFigures {
  const byId = new Map(runs.map((run) => [run.id, run]));
  const heard: number[] = [];
  const latencies: TurnLatency[] = [];
  const outside: number[] = [];
  const failures: string[] = [];
  for (const call of calls) {
    const run = call.runId === null ? undefined : byId.get(call.runId);
    const recorded = run?.turnLatency.slice(0, turnsPerCall) ?? [];
    const said = call.heardMs.slice(0, turnsPerCall);
    heard.push(...said);
    latencies.push(...recorded);
    if (said.length === recorded.length) {
      said.forEach((ms, index) => {
        const turn = recorded[index];
        if (turn) outside.push(ms - turn.endpointing - turn.total);
      });
    }
    const reason =
      call.failure ??
      (!run?.isCompleted
        ? 'the run did not complete'
        : run.callStatus !== 'completed'
          ? `call_status ${run.callStatus}`
          : recorded.length < turnsPerCall
            ? `${recorded.length} of ${turnsPerCall} turns recorded`
            : null);
    if (reason && failures.length < 5) failures.push(`run ${call.runId ?? '-'}: ${reason}`);
  }
  return {
    path,
    calls: calls.length,
    turns: heard.length,
    planned: calls.length * turnsPerCall,
    failures,
    heard: percentiles(heard),
    endpointing: percentiles(latencies.map((latency) => latency.endpointing)),
    total: percentiles(latencies.map((latency) => latency.total)),
    outside: percentiles(outside),
  };
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '-');
const pair = ({ p50, p95 }: Percentiles) => `${ms(p50)} / ${ms(p95)}`;
const signed = (value: number) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(0)}` : '-');
const difference = (web: Percentiles, phone: Percentiles) =>
  `${signed(web.p50 - phone.p50)} / ${signed(web.p95 - phone.p95)}`;

/** One row per path, then the web call's difference; in ms. */
export function printPaths(web: PathFigures, phone: PathFigures): void {
  const header = ['path', 'calls', 'turns', 'heard p50/p95', 'endpointing p50/p95', 'total p50/p95', 'outside p50/p95'];
  const row = (figures: PathFigures) => [
    figures.path,
    String(figures.calls),
    `${figures.turns}/${figures.planned}`,
    pair(figures.heard),
    pair(figures.endpointing),
    pair(figures.total),
    pair(figures.outside),
  ];
  const rows = [
    row(web),
    row(phone),
    [
      'web − phone',
      '',
      '',
      difference(web.heard, phone.heard),
      difference(web.endpointing, phone.endpointing),
      difference(web.total, phone.total),
      difference(web.outside, phone.outside),
    ],
  ];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((cells) => (cells[column] ?? '').length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`);
  for (const cells of rows) console.log(line(cells));
}
