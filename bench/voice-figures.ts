import type { TurnLatency } from '../agent-runtime/contract';
import type { CallOutcome } from './twilio-caller';

/** What one level of simultaneous calls measured, and how it is printed. */

export interface RunRecord {
  id: number;
  isCompleted: boolean;
  callStatus: string | null;
  turnLatency: TurnLatency[];
}

export interface LevelFigures {
  /** Simultaneous calls. */
  calls: number;
  /** Turns with a recorded latency, of `calls × turns` planned. */
  turns: number;
  planned: number;
  /** Planned turns that were not answered and measured, and why (the first few reasons). */
  failedTurns: number;
  failures: string[];
  overhead: Percentiles;
  total: Percentiles;
  /** `total` less the fakes' fixed latencies: everything Switchboard added, waits on its own loop included. */
  added: Percentiles;
  /** `added` p95 of each caller turn (1 to K): the last overlaps the hang-ups of the calls ahead. */
  addedP95ByTurn: number[];
  medians: { endpointing: number; stt: number; llm: number; tts: number };
  /** p95 of each provider stage: which of them a slow turn waited in. */
  stageP95: { stt: number; llm: number; tts: number };
  /** As the caller heard it: end of speech to the first agent audio (the detector's silence included). */
  heard: Percentiles;
  /** API process CPU per second of call, and as a share of one core per call. */
  cpuMsPerCallSecond: number;
  corePercentPerCall: number;
  apiPeakRssBytes: number;
  /** The whole machine's busy share over the level (two cores: 100 % = both). */
  machineBusyPercent: number;
  /** The benchmark process's own event-loop delay (p99): the fakes answer late by this much at worst. */
  benchLoopDelayP99Ms: number;
  callSeconds: number;
}

export interface Percentiles {
  p50: number;
  p95: number;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

const percentiles = (values: number[]): Percentiles => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

export interface LevelMeasurements {
  simultaneous: number;
  /** Every call of the level (several batches of `simultaneous` calls for small levels). */
  outcomes: CallOutcome[];
  runs: RunRecord[];
  turnsPerCall: number;
  /** STT final + LLM first token + TTS first audio, as the fakes are set. */
  fixedLatencyMs: number;
  apiCpuMs: number;
  apiPeakRssBytes: number;
  machineBusyPercent: number;
  benchLoopDelayP99Ms: number;
}

export function levelFigures(measured: LevelMeasurements): LevelFigures {
  const { outcomes, runs, turnsPerCall } = measured;
  const byId = new Map(runs.map((run) => [run.id, run]));
  const latencies: TurnLatency[] = [];
  const failures: string[] = [];
  let failedTurns = 0;
  for (const call of outcomes) {
    const run = call.runId === null ? undefined : byId.get(call.runId);
    const turns = run?.turnLatency.slice(0, turnsPerCall) ?? [];
    latencies.push(...turns);
    const reason =
      call.failure ??
      (!run?.isCompleted
        ? 'the run did not complete'
        : run.callStatus !== 'completed'
          ? `call_status ${run.callStatus}`
          : turns.length < turnsPerCall
            ? `${turns.length} of ${turnsPerCall} turns measured`
            : null);
    if (reason) {
      failedTurns += turnsPerCall - Math.min(turnsPerCall, run?.isCompleted ? turns.length : 0);
      if (failures.length < 5) failures.push(`run ${call.runId ?? '-'}: ${reason}`);
    }
  }
  const median = (pick: (latency: TurnLatency) => number) => percentile(latencies.map(pick), 50);
  const p95 = (pick: (latency: TurnLatency) => number) => percentile(latencies.map(pick), 95);
  const added = (latency: TurnLatency) => latency.total - measured.fixedLatencyMs;
  const callSeconds = outcomes.reduce((sum, call) => sum + (call.endedAt - call.startedAt) / 1000, 0);
  const cpuMsPerCallSecond = callSeconds > 0 ? measured.apiCpuMs / callSeconds : NaN;
  return {
    calls: measured.simultaneous,
    turns: latencies.length,
    planned: outcomes.length * turnsPerCall,
    failedTurns,
    failures,
    overhead: percentiles(latencies.map((latency) => latency.overhead)),
    total: percentiles(latencies.map((latency) => latency.total)),
    added: percentiles(latencies.map(added)),
    addedP95ByTurn: Array.from({ length: turnsPerCall }, (_, index) =>
      percentile(latencies.filter((latency) => latency.turn === index + 1).map(added), 95),
    ),
    medians: {
      endpointing: median((latency) => latency.endpointing),
      stt: median((latency) => latency.stt),
      llm: median((latency) => latency.llm),
      tts: median((latency) => latency.tts),
    },
    stageP95: {
      stt: p95((latency) => latency.stt),
      llm: p95((latency) => latency.llm),
      tts: p95((latency) => latency.tts),
    },
    heard: percentiles(outcomes.flatMap((call) => call.heardMs)),
    cpuMsPerCallSecond,
    corePercentPerCall: cpuMsPerCallSecond / 10,
    apiPeakRssBytes: measured.apiPeakRssBytes,
    machineBusyPercent: measured.machineBusyPercent,
    benchLoopDelayP99Ms: measured.benchLoopDelayP99Ms,
    callSeconds,
  };
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '-');
const pair = ({ p50, p95 }: Percentiles) => `${ms(p50)} / ${ms(p95)}`;

/** One row per level, in ms unless named. */
export function printTable(levels: LevelFigures[]): void {
  const header = [
    'calls',
    'turns',
    'failed',
    'overhead p50/p95',
    'added p50/p95',
    'added p95 by turn',
    'total p50/p95',
    'stt/llm/tts med',
    'stt/llm/tts p95',
    'heard p50/p95',
    'API CPU ms/call-s',
    '% core/call',
    'API RSS',
    'machine busy',
    'bench lag p99',
  ];
  const rows = levels.map((level) => [
    String(level.calls),
    `${level.turns}/${level.planned}`,
    String(level.failedTurns),
    pair(level.overhead),
    pair(level.added),
    level.addedP95ByTurn.map(ms).join('/'),
    pair(level.total),
    `${ms(level.medians.stt)}/${ms(level.medians.llm)}/${ms(level.medians.tts)}`,
    `${ms(level.stageP95.stt)}/${ms(level.stageP95.llm)}/${ms(level.stageP95.tts)}`,
    pair(level.heard),
    level.cpuMsPerCallSecond.toFixed(1),
    level.corePercentPerCall.toFixed(2),
    `${(level.apiPeakRssBytes / 1024 / 1024).toFixed(0)} MiB`,
    `${level.machineBusyPercent.toFixed(0)} %`,
    ms(level.benchLoopDelayP99Ms),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`);
  for (const row of rows) console.log(line(row));
}
