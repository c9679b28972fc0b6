import type { TurnLatency } from '../agent-runtime/contract';
import type { CallOutcome } from './twilio-caller';

/** What one level of simultaneous calls measured, and how it is printed. */

export interface RunRecord {
  id: number;
  isCompleted: boolean;
  callStatus: string | null;
  turnLatency: TurnLatency[];
  /** `logs.tool_calls[]`, as much as the bench reads of it. */
  toolCalls: { status: string; duration_ms: number }[];
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
  /** Of the turns without a tool call. */
  overhead: Percentiles;
  total: Percentiles;
  /** `total` less the fakes' fixed latencies: everything Switchboard added, waits on its own loop included. */
  added: Percentiles;
  /** The turns with a tool round: `added` against their own fixed latencies (two model requests and the tool's answer). */
  toolTurns: number;
  toolAdded: Percentiles;
  /** What the tool round itself added: `toolAdded` less `added`, at each percentile. */
  toolRound: Percentiles;
  /** The same per call, each tool turn against the plain turn before it. */
  toolRoundPaired: Percentiles;
  /** `logs.tool_calls[].duration_ms` less the tool's own answer time: the request's path through Switchboard. */
  toolRequest: Percentiles;
  /** Tool calls on the runs, and how many of them did not answer `ok`. */
  toolCalls: number;
  toolCallsFailed: number;
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
  /** The caller turns on which the model calls the tool; none, no tool rounds. */
  toolTurns: readonly number[];
  /** The tool's own answer time: a tool turn's fixed latency is `fixedLatencyMs` + this + one more first token. */
  toolAnswerMs: number;
  llmFirstTokenMs: number;
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
  const isToolTurn = (latency: TurnLatency) => measured.toolTurns.includes(latency.turn);
  const toolFixedMs = measured.fixedLatencyMs + measured.toolAnswerMs + measured.llmFirstTokenMs;
  const added = (latency: TurnLatency) => latency.total - (isToolTurn(latency) ? toolFixedMs : measured.fixedLatencyMs);
  const toolLatencies = latencies.filter(isToolTurn);
  const toolAdded = percentiles(toolLatencies.map(added));
  const measuredRuns = outcomes.flatMap((call) => (call.runId === null ? [] : [byId.get(call.runId)]));
  const paired = measuredRuns.flatMap((run) => {
    const turns = run?.turnLatency ?? [];
    return turns.filter(isToolTurn).flatMap((tool) => {
      const plain = turns.find((latency) => latency.turn === tool.turn - 1 && !isToolTurn(latency));
      return plain ? [added(tool) - added(plain)] : [];
    });
  });
  const toolCalls = measuredRuns.flatMap((run) => run?.toolCalls ?? []);
  const plainLatencies = latencies.filter((latency) => !isToolTurn(latency));
  const plainAdded = percentiles(plainLatencies.map(added));
  const median = (pick: (latency: TurnLatency) => number) => percentile(plainLatencies.map(pick), 50);
  const p95 = (pick: (latency: TurnLatency) => number) => percentile(plainLatencies.map(pick), 95);
  const callSeconds = outcomes.reduce((sum, call) => sum + (call.endedAt - call.startedAt) / 1000, 0);
  const cpuMsPerCallSecond = callSeconds > 0 ? measured.apiCpuMs / callSeconds : NaN;
  return {
    calls: measured.simultaneous,
    turns: latencies.length,
    planned: outcomes.length * turnsPerCall,
    failedTurns,
    failures,
    overhead: percentiles(plainLatencies.map((latency) => latency.overhead)),
    total: percentiles(plainLatencies.map((latency) => latency.total)),
    added: plainAdded,
    toolTurns: toolLatencies.length,
    toolAdded,
    toolRound: { p50: toolAdded.p50 - plainAdded.p50, p95: toolAdded.p95 - plainAdded.p95 },
    toolRoundPaired: percentiles(paired),
    toolRequest: percentiles(toolCalls.map((tool) => tool.duration_ms - measured.toolAnswerMs)),
    toolCalls: toolCalls.length,
    toolCallsFailed: toolCalls.filter((tool) => tool.status !== 'ok').length,
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

/** The tool rounds of each level, in ms. */
export function printToolTable(levels: LevelFigures[]): void {
  printRows(
    [
      'calls',
      'tool turns',
      'tool calls (failed)',
      'plain added p50/p95',
      'tool turn added p50/p95',
      'tool round p50/p95',
      'paired p50/p95',
      'tool request p50/p95',
    ],
    levels.map((level) => [
      String(level.calls),
      String(level.toolTurns),
      `${level.toolCalls} (${level.toolCallsFailed})`,
      pair(level.added),
      pair(level.toolAdded),
      pair(level.toolRound),
      pair(level.toolRoundPaired),
      pair(level.toolRequest),
    ]),
  );
}

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
  printRows(header, rows);
}

function printRows(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`);
  for (const row of rows) console.log(line(row));
}
